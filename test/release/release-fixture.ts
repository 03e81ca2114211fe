import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { platformKey } from "../../src/update/manifest.ts";
import { signerFromPem, type ReleaseSigner } from "../../release/signing.ts";
import { writeReleaseFiles, type ManifestFields } from "../../release/release.ts";
import { linkOrCopy } from "../helpers/compiled-build.ts";
import { releasedBuild, TEST_RELEASE, testReleaseKeys, testReleaseSigner } from "../helpers/released-build.ts";

const root = join(import.meta.dir, "..", "..");

/** A key pair made for the tests; the real release key never is in the repository. */
export function makeTestKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

/** This machine's manifest key found the way install.sh finds it (musl's ldd names itself), not through Bun. */
export function installShPlatformKey(): string {
  if (process.platform !== "linux") return platformKey();
  const ldd = Bun.spawnSync(["sh", "-c", "ldd --version 2>&1 || true"]);
  return platformKey("linux", process.arch, /musl/i.test(ldd.stdout.toString()) ? "musl" : "glibc");
}

export interface TestRelease {
  dir: string;
  version: string;
  buildNumber: number;
  publishedAt: string;
  notes: string;
  hostKey: string;
  /** The host executable in `dir`. */
  binary: string;
  keys: { privateKeyPem: string; publicKeyPem: string };
  signer: ReleaseSigner;
  /** What `npm run release` printed. */
  output: string;
}

/** Temp folders a test file makes, removed together in its afterAll (releases are ~110 MB each). */
export class TempDirs {
  private readonly dirs: string[] = [];

  make(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  removeAll(): void {
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A real `npm run release` for the host target into a folder of `temps`. Each test file makes its own
 * (compiling takes a few seconds): bun test gives a file no hook that runs after the last file.
 */
export async function makeRelease(temps: TempDirs): Promise<TestRelease> {
  const keys = makeTestKeyPair();
  const dir = join(temps.make("atrium-release-"), "out");
  const hostKey = installShPlatformKey();
  const release = { version: "0.9.0", buildNumber: 900, publishedAt: "2026-05-01T12:00:00.000Z", notes: 'Fixes "quotes" and\nnew lines.' };
  const env: Record<string, string | undefined> = { ...process.env, ATRIUM_RELEASE_KEY: keys.privateKeyPem };
  delete env.ATRIUM_RELEASE_KEY_FILE;
  const child = Bun.spawn(
    [
      process.execPath,
      join(root, "release", "release.ts"),
      "--targets",
      hostKey,
      "--out",
      dir,
      "--version",
      release.version,
      "--build-number",
      String(release.buildNumber),
      "--channel",
      "stable",
      "--notes",
      release.notes,
      "--published-at",
      release.publishedAt,
    ],
    { cwd: root, env, stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`npm run release failed (exit ${code}):\n${stdout}${stderr}`);
  return {
    dir,
    ...release,
    hostKey,
    binary: join(dir, `atrium-${hostKey}`),
    keys,
    signer: signerFromPem(keys.privateKeyPem),
    output: stdout,
  };
}

/**
 * A release folder for this machine as `npm run release` writes it (the executable, SHA256SUMS, the signed
 * stable.json), around the release suite's shared build (releasedBuild): for tests of what installs a release,
 * which need no compile of their own (test/release/release-script.release.ts runs the real `npm run release`).
 */
export async function releaseOfTestBuild(temps: TempDirs): Promise<Omit<TestRelease, "output">> {
  const dir = join(temps.make("atrium-release-"), "out");
  mkdirSync(dir);
  const hostKey = installShPlatformKey();
  const binary = join(dir, `atrium-${hostKey}`);
  linkOrCopy(await releasedBuild(), binary);
  const fields: ManifestFields = { ...TEST_RELEASE, publishedAt: "2026-05-01T12:00:00.000Z", notes: "the shared test build", minServiceVersion: null };
  await writeReleaseFiles(dir, [{ key: hostKey, name: `atrium-${hostKey}` }], fields, null, testReleaseSigner);
  return { dir, ...fields, hostKey, binary, keys: testReleaseKeys, signer: testReleaseSigner };
}

/**
 * A release directory whose executable is a shell script, for install.sh tests that need more
 * releases than one compile gives: install.sh treats the executable as opaque bytes, checks their
 * sha256 and that `--version` prints the manifest's version.
 */
export async function scriptRelease(
  dir: string,
  options: { hostKey: string; signer: ReleaseSigner; version: string; buildNumber: number; script: string; channel?: "stable" | "alpha"; baseUrl?: string },
): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const name = `atrium-${options.hostKey}`;
  writeFileSync(join(dir, name), options.script, { mode: 0o755 });
  const fields: ManifestFields = {
    channel: options.channel ?? "stable",
    version: options.version,
    buildNumber: options.buildNumber,
    publishedAt: new Date().toISOString(),
    notes: "",
    minServiceVersion: null,
  };
  await writeReleaseFiles(dir, [{ key: options.hostKey, name }], fields, options.baseUrl ?? null, options.signer);
  return join(dir, name);
}

/** A script that answers `--version` like atrium does. */
export const versionScript = (version: string): string => `#!/bin/sh\n[ "$1" = --version ] && echo ${version}\nexit 0\n`;
