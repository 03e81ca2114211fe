import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createDatabaseIfMissing } from "../src/store/new-database.ts";
import { latestSchemaVersion } from "../src/store/migrations.ts";
import { schemaImageName } from "../src/store/schema-image.ts";

export interface CompileOptions {
  outfile: string;
  /** A `bun build --target`, e.g. `bun-linux-x64`; the machine's own when absent. */
  target?: string;
  version: string;
  buildNumber: number;
  channel: string;
  commit?: string;
  /** The manifest `os-arch` key of `target`, embedded so a musl build updates to a musl build. */
  platformKey?: string;
  /** The Ed25519 public key (SPKI PEM) release manifests must be signed with; none in dev builds. */
  updatePublicKey?: string;
  /** What to compile; Atrium itself (main and its worker threads) when absent. */
  entrypoints?: string[];
}

const root = join(import.meta.dir, "..");

/**
 * Compiles the single `atrium` executable. Only whitespace is minified: Elysia reads each handler's
 * source to decide what to parse and whether to await it. Identifier minification made a build answer
 * 500 to unauthenticated requests, and syntax minification folds `{ const result = run(); return
 * result; }` into `=> run()`, which Elysia takes for async and awaits on every request.
 * The executable must not pick up a `.env` or `bunfig.toml` from whatever folder it is started in.
 */
/** The worker threads' modules: separate entrypoints, which the binary embeds beside main. */
export const ATRIUM_WORKERS = [
  join(root, "src", "store", "checkpoint-worker.ts"),
  join(root, "src", "store", "migration-worker.ts"),
  join(root, "src", "terminals", "pty-worker.ts"),
];

export async function compileBinary(options: CompileOptions): Promise<void> {
  // The migrated empty database a first start writes instead of migrating (src/store/schema-image.ts).
  const imageDir = mkdtempSync(join(tmpdir(), "atrium-schema-image-"));
  try {
    const image = join(imageDir, schemaImageName(latestSchemaVersion));
    createDatabaseIfMissing(image);
    await bunBuild(options, [...(options.entrypoints ?? [join(root, "src", "main.ts"), ...ATRIUM_WORKERS]), image]);
  } finally {
    rmSync(imageDir, { recursive: true, force: true });
  }
}

async function bunBuild(options: CompileOptions, entrypoints: string[]): Promise<void> {
  const define = (name: string, value: string) => ["--define", `${name}=${JSON.stringify(value)}`];
  const args = [
    "build",
    "--compile",
    "--minify-whitespace",
    "--bytecode",
    // ESM with splitting: each lazily imported command and module is a chunk of its own, loaded when
    // imported. As one CommonJS bundle every start loaded the whole 2.2 MB of bytecode (40 ms of a
    // `--version`).
    "--format=esm",
    "--splitting",
    // Paths under the executable's root as under the repository's, whatever the entrypoints: workers
    // are found there (src/system/worker-url.ts).
    `--root=${root}`,
    "--sourcemap",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    ...(options.target ? [`--target=${options.target}`] : []),
    ...define("BUILD_VERSION", options.version),
    ...define("BUILD_NUMBER", String(options.buildNumber)),
    ...define("BUILD_CHANNEL", options.channel),
    ...define("BUILD_COMMIT", options.commit ?? ""),
    ...define("BUILD_PLATFORM_KEY", options.platformKey ?? ""),
    ...define("BUILD_UPDATE_PUBLIC_KEY", options.updatePublicKey ?? ""),
    "--outfile",
    options.outfile,
    ...entrypoints,
  ];
  const folder = dirname(options.outfile);
  const before = new Set(existsSync(folder) ? readdirSync(folder) : []);
  const child = Bun.spawn([process.execPath, ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`bun build failed (exit ${code}):\n${stderr}`);
  // The source maps are embedded in the executable; the copies bun writes beside it (one for the
  // executable, one per chunk of the further entrypoints) are not shipped.
  for (const name of readdirSync(folder)) if (name.endsWith(".map") && !before.has(name)) rmSync(join(folder, name), { force: true });
}
