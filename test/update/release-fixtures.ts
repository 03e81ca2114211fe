import { createHash, generateKeyPairSync } from "node:crypto";
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readSync, statSync, writeFileSync } from "node:fs";
import { linkOrCopy } from "../helpers/compiled-build.ts";
import { join } from "node:path";
import { signerFromPem, type ReleaseSigner } from "../../release/signing.ts";
import { writeReleaseFiles } from "../../release/release.ts";
import { canonicalJson, platformKey, type ReleaseChannel, type ReleaseManifest } from "../../src/update/manifest.ts";

/** A fresh Ed25519 release key, as `npm run release` would use. */
export function testSigner(): ReleaseSigner {
  const { privateKey } = generateKeyPairSync("ed25519");
  return signerFromPem(privateKey.export({ type: "pkcs8", format: "pem" }).toString(), "the test key");
}

/** Hashes already taken, by the file's identity: a write, a rename over it or a copy changes one of its parts. */
const hashes = new Map<string, string>();

/**
 * The sha256 of a file; an unchanged file (the same identity) is hashed once. Read through one 1 MB
 * buffer: reading a 120 MB build whole into memory took 0.5 s more than hashing it (0.1 s).
 */
export function sha256Of(path: string): string {
  const { dev, ino, size, mtimeMs, ctimeMs } = statSync(path);
  const identity = `${dev}:${ino}:${size}:${mtimeMs}:${ctimeMs}`;
  const known = hashes.get(identity);
  if (known) return known;
  const hash = createHash("sha256");
  const chunk = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, "r");
  try {
    for (;;) {
      const read = readSync(fd, chunk);
      if (read === 0) break;
      hash.update(chunk.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
  const digest = hash.digest("hex");
  hashes.set(identity, digest);
  return digest;
}

/** This machine's manifest key, which a build compiled here looks for. */
export const PLATFORM = platformKey();

export interface ReleaseSpec {
  /** The executable published for this machine. */
  executable: string;
  version: string;
  buildNumber: number;
  channel?: ReleaseChannel;
  signer: ReleaseSigner;
  /** Copy rather than hard-link the executable (when the test will change the published bytes). */
  copy?: boolean;
  /** Changes the manifest before it is signed (e.g. a wrong sha256). */
  alter?: (manifest: ReleaseManifest) => void;
  notes?: string;
}

/** Writes a release folder as `npm run release` does: the executable, SHA256SUMS and the signed `<channel>.json`. */
export async function writeRelease(dir: string, spec: ReleaseSpec): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const name = `atrium-${PLATFORM}`;
  // A second channel published in the same folder shares the executable already there.
  if (!existsSync(join(dir, name))) {
    if (spec.copy) copyFileSync(spec.executable, join(dir, name));
    else linkOrCopy(spec.executable, join(dir, name));
  }
  const channel = spec.channel ?? "stable";
  const signed = await writeReleaseFiles(
    dir,
    [{ key: PLATFORM, name }],
    {
      channel,
      version: spec.version,
      buildNumber: spec.buildNumber,
      publishedAt: new Date().toISOString(),
      notes: spec.notes ?? `release ${spec.version}`,
      minServiceVersion: null,
    },
    null,
    spec.signer,
  );
  if (spec.alter) {
    const manifest = structuredClone(signed.manifest);
    spec.alter(manifest);
    writeFileSync(join(dir, `${channel}.json`), `${canonicalJson(spec.signer.sign(manifest))}\n`);
  }
  return join(dir, name);
}

/** A loopback HTTP server publishing whichever release folder `root` names (404 for anything missing). */
export function startReleaseHost(): { url: string; root: string; stop(): void } {
  const host = {
    root: "",
    url: "",
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const name = decodeURIComponent(new URL(request.url).pathname.slice(1));
      if (!host.root || name.includes("..") || name.includes("/")) return new Response("not found", { status: 404 });
      const file = Bun.file(join(host.root, name));
      return (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
    },
  });
  host.url = `http://127.0.0.1:${server.port}/`;
  return host;
}
