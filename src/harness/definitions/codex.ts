import { join } from "node:path";
import type { HarnessDefinition } from "../harness-definition.ts";

/** Codex: `codex login status` says on stderr how it is logged in (exit 1 when it is not). */
export const codex: HarnessDefinition = {
  id: "codex",
  name: "Codex",
  symbolName: "codex",
  source: "builtin",
  launchKind: "executable",
  executable: "codex",
  versionArgs: ["--version"],
  adapter: { executable: "codex-acp", npmPackage: "@zed-industries/codex-acp" },
  acpCommand: ["codex-acp"],
  npmPackage: "@openai/codex",
  brewFormula: "codex",
  installHint: "npm install -g @openai/codex @zed-industries/codex-acp (the CLI and its ACP adapter)",
  loginMethods: [
    { id: "chatgpt", name: "ChatGPT account", description: "Sign in with a ChatGPT plan", kind: "browser" },
    { id: "api-key", name: "OpenAI API key", description: "Use an OpenAI API key", kind: "api_key" },
  ],
  configHomeEnv: "CODEX_HOME",
  // https://developers.openai.com/codex/skills: user skills in $HOME/.agents/skills; $CODEX_HOME/skills when set.
  skillsDir: ({ env, home }) => (env.CODEX_HOME ? join(env.CODEX_HOME, "skills") : join(home, ".agents", "skills")),
  // `[mcp_servers.<name>]` tables in config.toml, in $CODEX_HOME or ~/.codex.
  mcpConfig: ({ env, home }) => ({ path: join(env.CODEX_HOME || join(home, ".codex"), "config.toml"), format: "codex" }),
  loginCommand: ["codex", "login"],
  // codex-acp sends Codex's warnings (EventMsg::Warning) and its compaction note as agent text, each a whole chunk.
  quirks: { selfNotice: /^(Falling back from WebSockets to HTTPS transport\b|Context compacted\s*$)/ },
  async probeAuth(context) {
    const result = await context.run(["login", "status"]);
    if (result.timedOut) return { state: "unknown", detail: "codex login status did not answer in time" };
    // Codex prefixes its answer with warnings (e.g. about PATH aliases); they say nothing of the login.
    const lines = `${result.stderr}\n${result.stdout}`
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line.length > 0 && !/^warning\b/i.test(line));
    const text = lines.join("\n");
    if (/not logged in/i.test(text)) return { state: "unauthenticated" };
    if (/api key configured/i.test(text)) return { state: "authenticated", authMethod: "api_key" };
    if (/logged in/i.test(text)) {
      return { state: "authenticated", authMethod: /api key/i.test(text) ? "api_key" : /chatgpt/i.test(text) ? "chatgpt" : undefined };
    }
    return { state: "unknown", detail: lines[0] ?? "codex login status said nothing" };
  },
};
