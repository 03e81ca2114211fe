import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { InvalidInputError } from "../errors.ts";
import { PluginManifest } from "../schemas/plugins.ts";

const MANIFEST_FILE = "atrium-plugin.json";

/** `/runCommand/0` → `runCommand[0]` */
const fieldName = (path: string) =>
  path
    .split("/")
    .filter(Boolean)
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join("");

/** The plugin's manifest, checked against its schema: a 400 names the file and the field that is wrong. */
export function readManifest(folder: string): PluginManifest {
  const file = join(folder, MANIFEST_FILE);
  if (!existsSync(file)) throw new InvalidInputError(`the source has no ${MANIFEST_FILE} at its root`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new InvalidInputError(`${MANIFEST_FILE} is not JSON: ${(error as Error).message}`);
  }
  const first = Value.Errors(PluginManifest, parsed).First();
  if (first) {
    const field = fieldName(first.path);
    const what = first.message === "Expected required property" ? "is required" : `is invalid: ${first.message.toLowerCase()}`;
    throw new InvalidInputError(`${MANIFEST_FILE}: ${field ? `field "${field}"` : "the manifest"} ${what}`);
  }
  const manifest = parsed as PluginManifest;
  if (RESERVED_IDS.includes(manifest.id)) throw new InvalidInputError(`${MANIFEST_FILE}: field "id" is invalid: ${manifest.id} is a name Atrium's routes use`);
  return manifest;
}

/** Ids that would shadow a route under /v1/plugins. */
const RESERVED_IDS = ["mcp", "install", "discover-remote"];

/**
 * A digest of everything a person consents to by installing: what runs (run and setup commands), what
 * it needs, what it shows and offers (panes, tools), its version and the commit it came from. Any
 * change makes a new key, so an install with an old key is refused.
 */
export function consentKeyOf(manifest: PluginManifest, commit: string | null): string {
  const consented = {
    id: manifest.id,
    version: manifest.version,
    runCommand: manifest.runCommand,
    setupCommands: manifest.setupCommands,
    requirements: manifest.requirements,
    panes: manifest.panes,
    tools: manifest.tools,
    commit,
  };
  return `ck_${createHash("sha256").update(JSON.stringify(consented)).digest("hex").slice(0, 40)}`;
}

/** What differs between two versions in what is consented to, in words. */
export function consentChanges(from: { manifest: PluginManifest; commit: string | null }, to: { manifest: PluginManifest; commit: string | null }): string[] {
  const changes: string[] = [];
  const differs = (key: keyof PluginManifest) => JSON.stringify(from.manifest[key]) !== JSON.stringify(to.manifest[key]);
  if (from.manifest.version !== to.manifest.version) changes.push(`version ${from.manifest.version} → ${to.manifest.version}`);
  if (from.commit !== to.commit) changes.push(`commit ${from.commit ?? "none"} → ${to.commit ?? "none"}`);
  for (const [key, words] of [
    ["runCommand", "the command that runs it"],
    ["setupCommands", "its setup commands"],
    ["requirements", "the programs it needs"],
    ["panes", "its panes"],
    ["tools", "its tools"],
  ] as const) {
    if (differs(key)) changes.push(`${words} changed`);
  }
  return changes;
}

/** The setup commands for this machine: those naming no platform, or this OS, or this OS and CPU. */
export function setupCommandsHere(manifest: PluginManifest): string[][] {
  const here = [process.platform, `${process.platform}-${process.arch}`];
  return manifest.setupCommands
    .filter((command) => command.platforms.length === 0 || command.platforms.some((platform) => here.includes(platform)))
    .map((command) => command.argv);
}

/** A command as one line: arguments with spaces or quotes are quoted (it is still run without a shell). */
export function displayCommand(argv: string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)).join(" ");
}

/** -1, 0 or 1 as `a` is older, the same or newer than `b` (major.minor.patch; a pre-release tail is ignored). */
export function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split(/[-+]/)[0]!.split(".").map(Number);
  const [left, right] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}
