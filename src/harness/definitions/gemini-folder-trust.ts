import { realpathSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { readJson } from "../detection.ts";

type TrustLevel = "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST";

interface TrustSettings {
  security?: { folderTrust?: { enabled?: boolean } };
}

const real = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};
const isInside = (folder: string, path: string) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/**
 * Whether Gemini CLI trusts a folder, as it decides (0.61): its environment overrides first, then
 * `security.folderTrust.enabled` (on unless set false), then the longest matching rule of
 * trustedFolders.json (`TRUST_PARENT` covers the rule's parent). No rule is not trusted. In a folder
 * it does not trust, Gemini starts no MCP server, the ones a client gives in session/new included.
 */
export function geminiTrustsFolder(folder: string, env: Record<string, string | undefined>, home: string): boolean {
  if (env.GEMINI_RESTRICTED_MODE === "true" || env.GEMINI_CLI_TRUST_WORKSPACE === "false") return false;
  if (env.GEMINI_CLI_TRUST_WORKSPACE === "true") return true;
  const settings = readJson(join(home, ".gemini", "settings.json")) as TrustSettings | undefined;
  if (settings?.security?.folderTrust?.enabled === false) return true;
  const rules = readJson(env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(home, ".gemini", "trustedFolders.json"));
  if (typeof rules !== "object" || rules === null) return false;
  const location = real(folder);
  let longest = -1;
  let level: TrustLevel | undefined;
  for (const [rulePath, trust] of Object.entries(rules as Record<string, TrustLevel>)) {
    const effective = real(trust === "TRUST_PARENT" ? dirname(rulePath) : rulePath);
    if (isInside(effective, location) && rulePath.length > longest) {
      longest = rulePath.length;
      level = trust;
    }
  }
  return level === "TRUST_FOLDER" || level === "TRUST_PARENT";
}
