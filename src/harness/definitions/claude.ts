import { join } from "node:path";
import type { HarnessDefinition } from "../harness-definition.ts";

interface ClaudeAuthStatus {
  loggedIn?: boolean;
  authMethod?: string;
  email?: string;
  orgId?: string;
  organizationId?: string;
}

/** Claude Code: `claude auth status --json` prints the login (exit 1 when logged out). */
export const claude: HarnessDefinition = {
  id: "claude",
  name: "Claude Code",
  symbolName: "claude",
  source: "builtin",
  launchKind: "executable",
  executable: "claude",
  versionArgs: ["--version"],
  adapter: { executable: "claude-agent-acp", npmPackage: "@agentclientprotocol/claude-agent-acp" },
  acpCommand: ["claude-agent-acp"],
  npmPackage: "@anthropic-ai/claude-code",
  brewFormula: "claude-code",
  installHint: "npm install -g @anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp (the CLI and its ACP adapter)",
  loginMethods: [
    { id: "claude-ai", name: "Claude account", description: "Sign in with a Claude Pro or Max subscription", kind: "browser" },
    { id: "api-key", name: "Anthropic API key", description: "Use ANTHROPIC_API_KEY", kind: "api_key" },
  ],
  configHomeEnv: "CLAUDE_CONFIG_DIR",
  // https://docs.claude.com/en/docs/claude-code/skills: personal skills in ~/.claude/skills (the config home).
  skillsDir: ({ env, home }) => join(env.CLAUDE_CONFIG_DIR || join(home, ".claude"), "skills"),
  // User-scope servers are `mcpServers` in ~/.claude.json (in the config home when CLAUDE_CONFIG_DIR is set).
  mcpConfig: ({ env, home }) => ({ path: join(env.CLAUDE_CONFIG_DIR || home, ".claude.json"), format: "claude" }),
  loginCommand: ["claude", "auth", "login"],
  // claude-agent-acp would run the Claude Code bundled with its SDK (2.1.185 beside a 2.1.197 on the PATH):
  // it runs the one Atrium found, shows and updates, unless the user named another.
  launchEnv: ({ env, executablePath }): Record<string, string> => (env.CLAUDE_CODE_EXECUTABLE ? {} : { CLAUDE_CODE_EXECUTABLE: executablePath }),
  // claude-agent-acp reports the cost its process has run up (the SDK's total), which starts at 0 again after a restart.
  quirks: { costPerProcess: true, modelUnsureAfterLoad: true },
  async probeAuth(context) {
    const result = await context.run(["auth", "status", "--json"]);
    if (result.timedOut) return { state: "unknown", detail: "claude auth status did not answer in time" };
    let status: ClaudeAuthStatus;
    try {
      status = JSON.parse(result.stdout) as ClaudeAuthStatus;
    } catch {
      if (result.code !== 0) return { state: "unauthenticated", detail: result.stderr.trim() || "claude auth status reports no login" };
      return { state: "unknown", detail: "claude auth status printed no JSON" };
    }
    if (status.loggedIn !== true) return { state: "unauthenticated" };
    return {
      state: "authenticated",
      email: status.email,
      organizationId: status.organizationId ?? status.orgId,
      authMethod: status.authMethod,
    };
  },
};
