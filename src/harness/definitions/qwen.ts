import { join } from "node:path";
import type { HarnessDefinition } from "../harness-definition.ts";

/** Qwen Code keeps its OAuth login in ~/.qwen/oauth_creds.json; API keys it reads from its settings. */
export const qwen: HarnessDefinition = {
  id: "qwen",
  name: "Qwen Code",
  symbolName: "qwen",
  source: "builtin",
  launchKind: "executable",
  executable: "qwen",
  versionArgs: ["--version"],
  acpCommand: ["qwen", "--acp"],
  npmPackage: "@qwen-code/qwen-code",
  installHint: "npm install -g @qwen-code/qwen-code",
  loginMethods: [{ id: "qwen-oauth", name: "Qwen account", description: "Sign in with qwen.ai", kind: "browser" }],
  acpAuthMethod(offered, context) {
    // Qwen refuses session/new until it is told which of its sign-ins to use.
    if (context.env.OPENAI_API_KEY && offered.includes("openai")) return "openai";
    if (context.readJson(join(context.home, ".qwen", "oauth_creds.json")) !== undefined && offered.includes("qwen-oauth")) return "qwen-oauth";
    return undefined;
  },
  // https://qwenlm.github.io/qwen-code-docs/en/users/features/skills/: personal skills in ~/.qwen/skills.
  skillsDir: ({ home }) => join(home, ".qwen", "skills"),
  // Qwen keeps Gemini's settings format: `mcpServers` in ~/.qwen/settings.json.
  mcpConfig: ({ home }) => ({ path: join(home, ".qwen", "settings.json"), format: "gemini" }),
  async probeAuth(context) {
    if (context.readJson(join(context.home, ".qwen", "oauth_creds.json")) !== undefined) {
      return { state: "authenticated", authMethod: "qwen-oauth" };
    }
    return { state: "unknown", detail: "no Qwen OAuth login found; an API key in its settings cannot be checked offline" };
  },
};
