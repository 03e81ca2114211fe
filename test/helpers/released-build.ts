import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { signerFromPem } from "../../release/signing.ts";
import { compiledBuild } from "./compiled-build.ts";

/**
 * An Ed25519 key pair derived from `seed`: the same in every test file and run, so builds that embed its
 * public key are compiled once (test/helpers/compiled-build.ts). A test key: it signs nothing real.
 */
export function seededKeyPair(seed: string): { privateKeyPem: string; publicKeyPem: string } {
  // PKCS#8 for Ed25519 is a fixed 16-byte header followed by the 32-byte private seed (RFC 8410).
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), createHash("sha256").update(seed).digest()]);
  const privateKey = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString(),
  };
}

export const testReleaseKeys = seededKeyPair("atrium test release key");
export const testReleaseSigner = signerFromPem(testReleaseKeys.privateKeyPem, "the test release key");

/** The release the release suite's tests share (install.sh, self-update): what it says it is, and the key its updates must carry. */
export const TEST_RELEASE = { version: "1.0.0", buildNumber: 1, channel: "stable" } as const;

/** Atrium compiled as TEST_RELEASE (shared, read-only: copy it before changing it). */
export const releasedBuild = (): Promise<string> => compiledBuild({ ...TEST_RELEASE, updatePublicKey: testReleaseSigner.publicKeyPem });
