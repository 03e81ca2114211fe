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
  acpCommand: ["codex-acp"],
  npmPackage: "@openai/codex",
  brewFormula: "codex",
  installHint: "npm install -g @openai/codex (and @agentclientprotocol/codex-acp for sessions)",
  loginMethods: [
    { id: "chatgpt", name: "ChatGPT account", description: "Sign in with a ChatGPT plan", kind: "browser" },
    { id: "api-key", name: "OpenAI API key", description: "Use an OpenAI API key", kind: "api_key" },
  ],
  configHomeEnv: "CODEX_HOME",
  loginCommand: ["codex", "login"],
  async probeAuth(context) {
    const result = await context.run(["login", "status"]);
    if (result.timedOut) return { state: "unknown", detail: "codex login status did not answer in time" };
    const text = `${result.stderr}\n${result.stdout}`;
    if (/not logged in/i.test(text)) return { state: "unauthenticated" };
    if (/logged in/i.test(text)) {
      return { state: "authenticated", authMethod: /api key/i.test(text) ? "api_key" : /chatgpt/i.test(text) ? "chatgpt" : undefined };
    }
    return { state: "unknown", detail: text.trim().split("\n")[0] || "codex login status said nothing" };
  },
};
