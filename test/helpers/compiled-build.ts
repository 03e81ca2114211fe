import { createHash } from "node:crypto";
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { compileBinary, type CompileOptions } from "../../release/compile.ts";

const root = join(import.meta.dir, "..", "..");
/** Beside npm's own caches: kept across runs, never committed, removed with node_modules. */
const CACHE = join(root, "node_modules", ".cache", "atrium-test-builds");
/** Builds kept (about 120 MB each); the least recently used go first. */
const KEEP = 8;
/** A lock older than this belongs to a test process that died mid-compile. */
const STALE_LOCK_MS = 5 * 60_000;

export type BuildOptions = Omit<CompileOptions, "outfile">;

/**
 * A developer's build: the package's version, and no update key, so it never updates itself (as a run
 * from source does not). The CLI's tests and the console's browser tests share it: one compile a run.
 */
export const DEV_BUILD: BuildOptions = { version: packageJson.version, buildNumber: 0, channel: "alpha" };
export const devBuild = (): Promise<string> => compiledBuild(DEV_BUILD);

/**
 * An executable compiled from the sources as they are now, with `options`: compiled once per source hash
 * and shared by every test file (and run) that asks for the same build. Test files running in parallel
 * wait for one compile. The file is shared: copy it before changing it.
 */
export async function compiledBuild(options: BuildOptions): Promise<string> {
  const key = buildKey(options);
  const dir = join(CACHE, key);
  const executable = join(dir, "atrium");
  mkdirSync(CACHE, { recursive: true });
  for (;;) {
    if (existsSync(executable)) {
      const now = new Date();
      utimesSync(dir, now, now);
      return executable;
    }
    if (takeLock(`${dir}.lock`)) break;
    await Bun.sleep(100);
  }
  try {
    // Compiled aside and renamed into place whole: a reader never sees a half-written executable.
    const scratch = `${dir}.partial-${process.pid}`;
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch);
    await compileBinary({ ...options, outfile: join(scratch, "atrium") });
    renameSync(scratch, dir);
    pruneOldBuilds();
  } finally {
    rmSync(`${dir}.lock`, { recursive: true, force: true });
  }
  return executable;
}

/** mkdir is atomic: whoever makes the folder compiles. A lock left by a killed process is taken over. */
function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

/** Everything a compile reads: Bun's version, the options, the sources, the lockfile and the entrypoints' folders. */
function buildKey(options: BuildOptions): string {
  const hash = createHash("sha256");
  hash.update(`${Bun.version}\n${JSON.stringify(options, (name, value) => (name === "entrypoints" ? value.map(relativeToRoot) : value))}\n`);
  const folders = new Set([join(root, "src"), join(root, "release"), ...(options.entrypoints ?? []).map((entry) => dirname(entry))]);
  const files = [join(root, "package-lock.json"), ...[...folders].flatMap((folder) => filesUnder(folder, folder.startsWith(join(root, "src"))))];
  for (const file of [...new Set(files)].sort()) hash.update(`${relativeToRoot(file)}\n`).update(readFileSync(file));
  return hash.digest("hex").slice(0, 24);
}

const relativeToRoot = (path: string) => relative(root, path);

function filesUnder(folder: string, recursive: boolean): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Keeps the most recently used builds; the others (older sources, other options) are removed. */
function pruneOldBuilds(): void {
  const builds = readdirSync(CACHE, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^[0-9a-f]{24}$/.test(entry.name))
    .map((entry) => ({ path: join(CACHE, entry.name), usedMs: statSync(join(CACHE, entry.name)).mtimeMs }))
    .sort((a, b) => b.usedMs - a.usedMs);
  for (const build of builds.slice(KEEP)) rmSync(build.path, { recursive: true, force: true });
}

/** Puts a shared build at `to` without copying 120 MB where a hard link can (the same file system). */
export function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}
