import { createPrivateKey, createPublicKey, sign, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { canonicalJson, publicKeyId, type ReleaseManifest, type SignedManifest } from "../src/update/manifest.ts";

/** The release signing key: Ed25519, kept out of the repository (see docs/releases.md). */
export interface ReleaseSigner {
  /** SPKI PEM, embedded in the executables as the key their updates must be signed with. */
  publicKeyPem: string;
  keyId: string;
  sign(manifest: ReleaseManifest): SignedManifest;
}

export const KEY_ENV = "ATRIUM_RELEASE_KEY";
export const KEY_FILE_ENV = "ATRIUM_RELEASE_KEY_FILE";

/** A signer for a PKCS#8 PEM private key; refuses anything but Ed25519, the only kind the server checks. */
export function signerFromPem(privateKeyPem: string, origin = "the release key"): ReleaseSigner {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(privateKeyPem);
  } catch (error) {
    throw new Error(`${origin} is not a PEM private key: ${(error as Error).message}`);
  }
  if (privateKey.asymmetricKeyType !== "ed25519") {
    throw new Error(`${origin} is a ${privateKey.asymmetricKeyType ?? "non-asymmetric"} key; releases are signed with Ed25519`);
  }
  const publicKeyPem = createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString();
  const keyId = publicKeyId(publicKeyPem);
  return {
    publicKeyPem,
    keyId,
    sign: (manifest) => ({
      manifest,
      signature: sign(null, Buffer.from(canonicalJson(manifest)), privateKey).toString("base64"),
      keyId,
    }),
  };
}

/**
 * The signer from the environment: `ATRIUM_RELEASE_KEY` holds the PEM itself (a CI secret), or
 * `ATRIUM_RELEASE_KEY_FILE` names a file holding it. Neither set is an error: a release is always signed.
 */
export function signerFromEnv(env: Record<string, string | undefined> = process.env): ReleaseSigner {
  const inline = env[KEY_ENV];
  if (inline) return signerFromPem(inline, KEY_ENV);
  const file = env[KEY_FILE_ENV];
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new Error(`${KEY_FILE_ENV}=${file} cannot be read: ${(error as Error).message}`);
    }
    return signerFromPem(text, file);
  }
  throw new Error(
    `no release signing key: set ${KEY_ENV} (PEM text) or ${KEY_FILE_ENV} (a path). ` +
      "Make one with `openssl genpkey -algorithm ed25519 -out atrium-release.pem` (see docs/releases.md).",
  );
}
