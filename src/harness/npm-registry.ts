import { readFileSync } from "node:fs";
import { join } from "node:path";

const DEFAULT_REGISTRY = "https://registry.npmjs.org/";

/**
 * The registry npm would ask for `npmPackage`, read the way npm reads its configuration (without
 * running npm): `npm_config_@scope:registry` / `npm_config_registry` in the environment, then the same
 * keys in the user's `~/.npmrc` (or `NPM_CONFIG_USERCONFIG`), then the public registry.
 */
export function registryFor(npmPackage: string, env: Record<string, string | undefined>, home: string): string {
  const scope = npmPackage.startsWith("@") ? npmPackage.slice(0, npmPackage.indexOf("/")) : undefined;
  const keys = [...(scope ? [`${scope}:registry`] : []), "registry"];
  const fromEnv = (key: string) => env[`npm_config_${key}`] ?? env[`NPM_CONFIG_${key.toUpperCase()}`];
  const npmrc = readNpmrc(env.npm_config_userconfig ?? env.NPM_CONFIG_USERCONFIG ?? join(home, ".npmrc"));
  for (const key of keys) {
    const value = fromEnv(key) ?? npmrc.get(key);
    if (value) return value.endsWith("/") ? value : `${value}/`;
  }
  return DEFAULT_REGISTRY;
}

/** `key=value` lines of an npmrc; comments (`;`, `#`) and anything unreadable are left out. */
function readNpmrc(path: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return new Map();
  }
  const entries = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith(";") || trimmed.startsWith("#")) continue;
    const equals = trimmed.indexOf("=");
    if (equals > 0) entries.set(trimmed.slice(0, equals).trim(), trimmed.slice(equals + 1).trim());
  }
  return entries;
}

/** The URL of the manifest of a package's `latest` version. */
export function latestManifestUrl(registry: string, npmPackage: string): string {
  return `${registry}${npmPackage.replace("/", "%2f")}/latest`;
}
