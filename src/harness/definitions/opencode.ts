import { join } from "node:path";
import type { HarnessDefinition } from "../harness-definition.ts";

/** Where OpenCode keeps provider credentials: `$XDG_DATA_HOME/opencode/auth.json`. */
export function opencodeAuthFile(env: Record<string, string | undefined>, home: string): string {
  return join(env.XDG_DATA_HOME || join(home, ".local", "share"), "opencode", "auth.json");
}

/** OpenCode logs in per provider; any provider in its auth file counts. */
export const opencode: HarnessDefinition = {
  id: "opencode",
  name: "OpenCode",
  symbolName: "opencode",
  source: "builtin",
  launchKind: "executable",
  executable: "opencode",
  versionArgs: ["--version"],
  acpCommand: ["opencode", "acp"],
  npmPackage: "opencode-ai",
  brewFormula: "opencode",
  installHint: "npm install -g opencode-ai",
  loginMethods: [
    { id: "api_key", name: "Provider API key", description: "Store a provider's API key for OpenCode", kind: "api_key" },
    { id: "oauth", name: "Provider sign-in", description: "Sign in to a provider in the browser", kind: "browser" },
  ],
  // https://opencode.ai/docs/skills: global skills in ~/.config/opencode/skills (the XDG config home).
  skillsDir: ({ env, home }) => join(env.XDG_CONFIG_HOME || join(home, ".config"), "opencode", "skills"),
  // Its prompt answer's usage is the latest assistant message's tokens, one model call of the turn; its cost is the session's total.
  quirks: { turnTokensOfLastCall: true },
  // The `mcp` object of the global opencode.json.
  mcpConfig: ({ env, home }) => ({ path: join(env.XDG_CONFIG_HOME || join(home, ".config"), "opencode", "opencode.json"), format: "opencode" }),
  async probeAuth(context) {
    const auth = context.readJson(opencodeAuthFile(context.env, context.home));
    const providers = auth && typeof auth === "object" ? Object.keys(auth) : [];
    if (providers.length === 0) return { state: "unauthenticated" };
    return { state: "authenticated", authMethod: providers.sort().join(", ") };
  },
};
