import { join } from "node:path";
import type { HarnessDefinition } from "../harness-definition.ts";
import { geminiTrustsFolder } from "./gemini-folder-trust.ts";

interface GeminiSettings {
  selectedAuthType?: string;
  security?: { auth?: { selectedType?: string } };
}

/** Gemini CLI has no status command: its settings, account file and API-key variables tell. */
export const gemini: HarnessDefinition = {
  id: "gemini",
  name: "Gemini CLI",
  symbolName: "gemini",
  source: "builtin",
  launchKind: "executable",
  executable: "gemini",
  versionArgs: ["--version"],
  acpCommand: ["gemini", "--acp"],
  npmPackage: "@google/gemini-cli",
  brewFormula: "gemini-cli",
  installHint: "npm install -g @google/gemini-cli",
  loginMethods: [
    { id: "oauth-personal", name: "Google account", description: "Sign in with Google", kind: "browser" },
    { id: "gemini-api-key", name: "Gemini API key", description: "Use GEMINI_API_KEY", kind: "api_key" },
  ],
  acpAuthMethod(offered, context) {
    // Gemini refuses session/new and session/load until it is told how to sign in.
    if (context.env.GEMINI_API_KEY && offered.includes("gemini-api-key")) return "gemini-api-key";
    if (context.env.GOOGLE_API_KEY && context.env.GOOGLE_GENAI_USE_VERTEXAI && offered.includes("vertex-ai")) return "vertex-ai";
    const selected = selectedAuthType(context.readJson(join(context.home, ".gemini", "settings.json")) as GeminiSettings | undefined);
    return selected && offered.includes(selected) ? selected : undefined;
  },
  // https://geminicli.com/docs/cli/using-agent-skills: user skills in ~/.gemini/skills.
  skillsDir: ({ home }) => join(home, ".gemini", "skills"),
  // `mcpServers` in ~/.gemini/settings.json.
  mcpConfig: ({ home }) => ({ path: join(home, ".gemini", "settings.json"), format: "gemini" }),
  // Its bundled ACP SDK rejects a failed request with a plain object, so its write tool never sees a
  // missing file as ENOENT and cannot create one through fs/read_text_file (acpFileSystemService.ts).
  // Offered no client reads, it reads the disk itself and still writes through Atrium, asking first.
  quirks: { readsFilesItself: true, loadWipesInStartPeriodMs: 60_000 },
  mcpCaveat: ({ cwd, env, home }) =>
    geminiTrustsFolder(cwd, env, home)
      ? undefined
      : `Gemini starts no MCP server in a folder it does not trust: trust ${cwd} in Gemini (its /permissions, or ~/.gemini/trustedFolders.json)`,
  async probeAuth(context) {
    if (context.env.GEMINI_API_KEY || context.env.GOOGLE_API_KEY) return { state: "authenticated", authMethod: "gemini-api-key" };
    const dir = join(context.home, ".gemini");
    const settings = context.readJson(join(dir, "settings.json")) as GeminiSettings | undefined;
    const selected = selectedAuthType(settings);
    const accounts = context.readJson(join(dir, "google_accounts.json")) as { active?: string } | undefined;
    const hasOauth = context.readJson(join(dir, "oauth_creds.json")) !== undefined;
    if (accounts?.active || hasOauth) return { state: "authenticated", email: accounts?.active, authMethod: selected ?? "oauth-personal" };
    if (selected) return { state: "unknown", authMethod: selected, detail: `auth type ${selected} is selected but no credentials were found` };
    return { state: "unauthenticated" };
  },
};

/** The sign-in the user chose in Gemini CLI itself (the newer settings layout, then the older). */
function selectedAuthType(settings: GeminiSettings | undefined): string | undefined {
  return settings?.security?.auth?.selectedType ?? settings?.selectedAuthType;
}
