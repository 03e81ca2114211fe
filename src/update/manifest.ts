import { createHash, createPublicKey, verify } from "node:crypto";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Timestamp } from "../schemas/common.ts";

/**
 * The signed release manifest: one file per channel (`stable.json`, `alpha.json`), written by
 * `npm run release` and read by `install.sh` and the server's update check. docs/releases.md has the
 * format and how it is published.
 */

export const RELEASE_CHANNELS = ["stable", "alpha"] as const;
export type ReleaseChannel = (typeof RELEASE_CHANNELS)[number];

/** The `os-arch` keys a release is built for; see `platformKey`. */
export const PLATFORM_KEYS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "linux-x64-musl"] as const;
export type PlatformKey = (typeof PLATFORM_KEYS)[number];

export const ReleaseFile = Type.Object({
  name: Type.String({ minLength: 1, description: "File name, e.g. `atrium-linux-x64`." }),
  url: Type.String({
    minLength: 1,
    description: "Relative to the manifest's own URL unless absolute (a release published with a base URL).",
  }),
  size: Type.Integer({ minimum: 1, description: "Bytes." }),
  sha256: Type.String({ pattern: "^[0-9a-f]{64}$", description: "Lower-case hex." }),
});
export type ReleaseFile = Static<typeof ReleaseFile>;

// Extra properties are allowed (not stripped, still signed): an older server must keep accepting
// manifests that a newer release script writes with more fields.
export const ReleaseManifest = Type.Object({
  channel: Type.Union([Type.Literal("stable"), Type.Literal("alpha")]),
  version: Type.String({ minLength: 1 }),
  buildNumber: Type.Integer({ minimum: 0, description: "Increases with every release of a channel." }),
  publishedAt: Timestamp,
  notes: Type.String(),
  minServiceVersion: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
    description: "The oldest installed version that may update straight to this release; null: any.",
  }),
  // String keys rather than the five known ones, so a target added later does not break older readers.
  files: Type.Record(Type.String(), ReleaseFile),
});
export type ReleaseManifest = Static<typeof ReleaseManifest>;

export const SignedManifest = Type.Object({
  manifest: ReleaseManifest,
  signature: Type.String({ description: "Base64 Ed25519 signature over canonicalJson(manifest)." }),
  keyId: Type.String({ description: "publicKeyId() of the key that signed it." }),
});
export type SignedManifest = Static<typeof SignedManifest>;

/**
 * JSON with object keys sorted recursively and no whitespace: the bytes that are signed. Plain data only
 * (what JSON.parse returns); undefined object members are left out, as JSON.stringify does.
 * The release script also writes manifest files in this form, which lets install.sh read them with sed.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(",")}}`;
  }
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error(`canonicalJson cannot encode a ${typeof value}`);
  return text;
}

/** First 16 hex digits of the sha256 of the public key's DER (SPKI): names the key in a manifest. */
export function publicKeyId(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("hex").slice(0, 16);
}

function firstProblem(schema: typeof SignedManifest | typeof ReleaseManifest, value: unknown): string | undefined {
  const problem = Value.Errors(schema, value).First();
  return problem ? `${problem.path || "the document"}: ${problem.message.toLowerCase()}` : undefined;
}

/**
 * Checks a parsed `<channel>.json` against the public key embedded in this build and returns its
 * manifest. Throws an Error saying what is wrong: the shape, a manifest signed by another key, or a
 * signature that does not match (tampered, or corrupted in transit).
 */
export function verifySignedManifest(signed: unknown, publicKeyPem: string): ReleaseManifest {
  const envelope = signed as Partial<Record<keyof SignedManifest, unknown>> | null;
  if (envelope === null || typeof envelope !== "object" || Array.isArray(envelope)) {
    throw new Error("release manifest is not a JSON object");
  }
  if (typeof envelope.signature !== "string" || typeof envelope.keyId !== "string") {
    throw new Error("release manifest has no signature or keyId");
  }
  if (envelope.manifest === null || typeof envelope.manifest !== "object") throw new Error("release manifest has no manifest object");
  const trustedKeyId = publicKeyId(publicKeyPem);
  if (envelope.keyId !== trustedKeyId) {
    throw new Error(`release manifest is signed by key ${envelope.keyId}, but this build trusts key ${trustedKeyId}`);
  }
  const signature = Buffer.from(envelope.signature, "base64");
  // Checked before the content is looked at: nothing unsigned gets further than this.
  const valid = signature.length === 64 && verify(null, Buffer.from(canonicalJson(envelope.manifest)), createPublicKey(publicKeyPem), signature);
  if (!valid) throw new Error("release manifest signature does not match its content (tampered or corrupted)");
  const problem = firstProblem(SignedManifest, signed);
  if (problem) throw new Error(`release manifest is malformed at ${problem}`);
  return (signed as SignedManifest).manifest;
}

/**
 * The manifest `files` key for a platform: `linux-x64`, `darwin-arm64`, … with `-musl` for a musl libc
 * build. Node's platform/arch names are used as they are (x64, arm64), as Bun's targets do.
 */
export function platformKey(platform: NodeJS.Platform = process.platform, arch: string = process.arch, libc?: "glibc" | "musl"): string {
  const os = platform === "win32" ? "windows" : platform;
  return `${os}-${arch}${libc === "musl" ? "-musl" : ""}`;
}

let libcOfThisProcess: { libc: "glibc" | "musl" | undefined } | undefined;

/**
 * Which C library this Linux process runs on: Node's and Bun's reports name glibc's version only under
 * glibc. Read once: a report takes about a millisecond, and health and every server start ask.
 */
export function hostLibc(): "glibc" | "musl" | undefined {
  libcOfThisProcess ??= { libc: process.platform === "linux" ? libcFromReport() : undefined };
  return libcOfThisProcess.libc;
}

function libcFromReport(): "glibc" | "musl" {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime ? "glibc" : "musl";
}

/** The key of this machine: what install.sh would pick here. */
export function hostPlatformKey(): string {
  return platformKey(process.platform, process.arch, hostLibc());
}

// Replaced by `bun build --define` in release builds (release/compile.ts): the target it was built for.
declare const BUILD_PLATFORM_KEY: string | undefined;

/**
 * The key of the executable that is running, so a musl build updates to a musl build: the target it was
 * compiled for, or the machine's platform when running from source.
 */
export function installedPlatformKey(): string {
  return typeof BUILD_PLATFORM_KEY === "string" && BUILD_PLATFORM_KEY !== "" ? BUILD_PLATFORM_KEY : hostPlatformKey();
}
