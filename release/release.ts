import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import packageJson from "../package.json" with { type: "json" };
import {
  PLATFORM_KEYS,
  RELEASE_CHANNELS,
  canonicalJson,
  hostPlatformKey,
  type PlatformKey,
  type ReleaseChannel,
  type ReleaseFile,
  type ReleaseManifest,
  type SignedManifest,
} from "../src/update/manifest.ts";
import { compileBinary } from "./compile.ts";
import { signerFromEnv, type ReleaseSigner } from "./signing.ts";

/**
 * `npm run release`: compiles Atrium for each target and writes a release directory with the
 * executables (`atrium-<os>-<arch>`), `SHA256SUMS`, the signed `<channel>.json` and a copy of
 * install.sh. docs/releases.md says how to publish it.
 */

const root = join(import.meta.dir, "..");

/** The `bun build --target` of each manifest key. */
export const BUN_TARGETS: Record<PlatformKey, string> = {
  "linux-x64": "bun-linux-x64",
  "linux-arm64": "bun-linux-arm64",
  "darwin-x64": "bun-darwin-x64",
  "darwin-arm64": "bun-darwin-arm64",
  "linux-x64-musl": "bun-linux-x64-musl",
};

export interface ReleaseOptions {
  version: string;
  buildNumber: number;
  channel: ReleaseChannel;
  outDir: string;
  notes: string;
  minServiceVersion: string | null;
  /**
   * When set, each file's `url` is `<baseUrl>/<name>`: an absolute URL, or a path relative to where the
   * manifest is published. Otherwise just the name: the executables sit beside the manifest.
   */
  baseUrl: string | null;
  targets: PlatformKey[];
  /** Defaults to now; fixed by tests. */
  publishedAt?: string;
  commit?: string;
}

export const executableName = (key: string): string => `atrium-${key}`;

/** Read through one 1 MB buffer: a stream's small chunks made hashing a 120 MB executable take twice as long. */
async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  const chunk = Buffer.allocUnsafe(1 << 20);
  const file = await open(path, "r");
  try {
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
  return hash.digest("hex");
}

/** What the manifest says of one executable in `dir`. */
export async function describeFile(dir: string, name: string, baseUrl: string | null): Promise<ReleaseFile> {
  const path = join(dir, name);
  return {
    name,
    url: baseUrl ? `${baseUrl.replace(/\/+$/, "")}/${name}` : name,
    size: statSync(path).size,
    sha256: await sha256File(path),
  };
}

export type ManifestFields = Omit<ReleaseManifest, "files">;

/**
 * Writes `SHA256SUMS` and the signed `<channel>.json` for executables already in `dir`. The manifest
 * is written as canonical JSON on one line: exactly the signed bytes, and a form install.sh can read
 * without a JSON tool.
 */
export async function writeReleaseFiles(
  dir: string,
  executables: Array<{ key: string; name: string }>,
  fields: ManifestFields,
  baseUrl: string | null,
  signer: ReleaseSigner,
): Promise<SignedManifest> {
  const files: Record<string, ReleaseFile> = {};
  for (const { key, name } of executables) {
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`executable name ${name} must be a plain file name`);
    files[key] = await describeFile(dir, name, baseUrl);
  }
  const entries = Object.values(files).sort((a, b) => a.name.localeCompare(b.name));
  // The format `sha256sum -c` and `shasum -a 256 -c` read: hash, two spaces, name.
  writeFileSync(join(dir, "SHA256SUMS"), entries.map((file) => `${file.sha256}  ${file.name}\n`).join(""));
  const signed = signer.sign({ ...fields, files });
  writeFileSync(join(dir, `${fields.channel}.json`), `${canonicalJson(signed)}\n`);
  return signed;
}

/** Compiles every target into `options.outDir`, then writes the checksums, manifest and install.sh. */
export async function buildRelease(options: ReleaseOptions, signer: ReleaseSigner, log: (line: string) => void = console.log): Promise<SignedManifest> {
  mkdirSync(options.outDir, { recursive: true });
  const executables: Array<{ key: string; name: string }> = [];
  for (const key of options.targets) {
    const name = executableName(key);
    // Each target compiles in its own folder: bun writes source maps beside the executable, and a
    // half-written file must never carry a release name.
    const staging = join(options.outDir, `.staging-${key}`);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging);
    const started = performance.now();
    await compileBinary({
      outfile: join(staging, "atrium"),
      target: BUN_TARGETS[key],
      platformKey: key,
      updatePublicKey: signer.publicKeyPem,
      version: options.version,
      buildNumber: options.buildNumber,
      channel: options.channel,
      commit: options.commit,
    });
    renameSync(join(staging, "atrium"), join(options.outDir, name));
    rmSync(staging, { recursive: true, force: true });
    if (key === hostPlatformKey()) await smokeTest(join(options.outDir, name), options.version);
    const megabytes = statSync(join(options.outDir, name)).size / 1e6;
    log(`${name}: ${megabytes.toFixed(0)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    executables.push({ key, name });
  }
  copyFileSync(join(root, "install.sh"), join(options.outDir, "install.sh"));
  return writeReleaseFiles(
    options.outDir,
    executables,
    {
      channel: options.channel,
      version: options.version,
      buildNumber: options.buildNumber,
      publishedAt: options.publishedAt ?? new Date().toISOString(),
      notes: options.notes,
      minServiceVersion: options.minServiceVersion,
    },
    options.baseUrl,
    signer,
  );
}

/** The executable this machine can run must at least start and know its version. */
async function smokeTest(executable: string, version: string): Promise<void> {
  const child = Bun.spawn([executable, "--version"], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0 || stdout.trim() !== version) {
    throw new Error(`${executable} --version printed ${JSON.stringify(stdout.trim())} (exit ${code}), not ${version}:\n${stderr}`);
  }
}

const VERSION_PATTERN = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

function gitOutput(args: string[]): string | undefined {
  const result = Bun.spawnSync(["git", ...args], { cwd: root, stderr: "ignore" });
  return result.exitCode === 0 ? result.stdout.toString().trim() : undefined;
}

/** Reads flags, falling back to environment variables, then defaults. Throws on a bad value. */
export const USAGE = `Usage: npm run release -- [options]   (the signing key comes from ATRIUM_RELEASE_KEY or ATRIUM_RELEASE_KEY_FILE)

  --version V              release version (ATRIUM_VERSION; default package.json's)
  --build-number N         increases with every release (ATRIUM_BUILD_NUMBER; default git commit count)
  --channel stable|alpha   (ATRIUM_CHANNEL; default stable): writes <channel>.json
  --out DIR                (ATRIUM_RELEASE_DIR; default dist/release/<version>-<build>)
  --notes TEXT | --notes-file FILE   release notes (ATRIUM_RELEASE_NOTES)
  --min-service-version V  oldest installed version that may update straight to this one (ATRIUM_MIN_SERVICE_VERSION)
  --base-url URL|PATH      file URLs become <base>/<name> (ATRIUM_RELEASE_BASE_URL; default: the bare name)
  --targets a,b            of ${PLATFORM_KEYS.join(", ")} (ATRIUM_RELEASE_TARGETS; default all)
  --published-at TIME      default now
`;

export function parseReleaseOptions(argv: string[], env: Record<string, string | undefined> = process.env): ReleaseOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      version: { type: "string" },
      "build-number": { type: "string" },
      channel: { type: "string" },
      out: { type: "string" },
      notes: { type: "string" },
      "notes-file": { type: "string" },
      "min-service-version": { type: "string" },
      "base-url": { type: "string" },
      targets: { type: "string" },
      "published-at": { type: "string" },
    },
  });
  const version = values.version ?? env.ATRIUM_VERSION ?? packageJson.version;
  if (!VERSION_PATTERN.test(version)) throw new Error(`--version ${version} is not a semantic version like 1.2.3 or 1.3.0-alpha.1`);

  // Within a channel the updater orders releases by build number (across channels by version); CI
  // should pass its run number. The commit count is a stand-in that grows on one branch.
  const buildText = values["build-number"] ?? env.ATRIUM_BUILD_NUMBER ?? gitOutput(["rev-list", "--count", "HEAD"]) ?? "0";
  const buildNumber = Number(buildText);
  if (!/^\d+$/.test(buildText) || !Number.isSafeInteger(buildNumber)) throw new Error(`--build-number ${buildText} is not a whole number`);

  const channel = values.channel ?? env.ATRIUM_CHANNEL ?? "stable";
  if (!(RELEASE_CHANNELS as readonly string[]).includes(channel)) {
    throw new Error(`--channel ${channel} is not one of ${RELEASE_CHANNELS.join(", ")}`);
  }

  const targetText = values.targets ?? env.ATRIUM_RELEASE_TARGETS;
  const targets = targetText
    ? targetText
        .split(",")
        .map((target) => target.trim())
        .filter(Boolean)
    : [...PLATFORM_KEYS];
  for (const target of targets) {
    if (!(PLATFORM_KEYS as readonly string[]).includes(target)) {
      throw new Error(`--targets: ${target} is not one of ${PLATFORM_KEYS.join(", ")}`);
    }
  }
  if (targets.length === 0) throw new Error("--targets names no target");

  const notesFile = values["notes-file"];
  const notes = notesFile ? readNotesFile(notesFile) : (values.notes ?? env.ATRIUM_RELEASE_NOTES ?? "");

  const minServiceVersion = values["min-service-version"] ?? env.ATRIUM_MIN_SERVICE_VERSION ?? null;
  if (minServiceVersion !== null && !VERSION_PATTERN.test(minServiceVersion)) {
    throw new Error(`--min-service-version ${minServiceVersion} is not a semantic version`);
  }

  // An absolute URL, or a path relative to where the manifest is published (`releases/1.2.0-57`).
  const baseUrl = values["base-url"] ?? env.ATRIUM_RELEASE_BASE_URL ?? null;
  if (baseUrl !== null && !/^[^\s"\\]+$/.test(baseUrl)) throw new Error(`--base-url ${JSON.stringify(baseUrl)} is not a URL or path`);

  const publishedAt = values["published-at"];
  if (publishedAt !== undefined && Number.isNaN(Date.parse(publishedAt))) throw new Error(`--published-at ${publishedAt} is not a time`);

  return {
    version,
    buildNumber,
    channel: channel as ReleaseChannel,
    outDir: resolve(values.out ?? env.ATRIUM_RELEASE_DIR ?? join(root, "dist", "release", `${version}-${buildNumber}`)),
    notes,
    minServiceVersion,
    baseUrl,
    targets: targets as PlatformKey[],
    publishedAt: publishedAt === undefined ? undefined : new Date(publishedAt).toISOString(),
    commit: gitOutput(["rev-parse", "--short", "HEAD"]),
  };
}

function readNotesFile(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (error) {
    throw new Error(`--notes-file ${path} cannot be read: ${(error as Error).message}`);
  }
}

async function main(): Promise<void> {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    process.stdout.write(USAGE);
    return;
  }
  let options: ReleaseOptions;
  let signer: ReleaseSigner;
  try {
    options = parseReleaseOptions(process.argv.slice(2));
    signer = signerFromEnv();
  } catch (error) {
    process.stderr.write(`release: ${(error as Error).message}\n(npm run release -- --help lists the options)\n`);
    process.exit(2);
  }
  console.log(
    `atrium ${options.version} build ${options.buildNumber} (${options.channel}) for ${options.targets.join(", ")}, ` +
      `signed with key ${signer.keyId}, into ${options.outDir}`,
  );
  const started = performance.now();
  const signed = await buildRelease(options, signer);
  console.log(
    `wrote ${Object.keys(signed.manifest.files).length} executables, SHA256SUMS, ${options.channel}.json and install.sh ` +
      `in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

if (import.meta.main) await main();
