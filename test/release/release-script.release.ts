import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { compiledBuild } from "../helpers/compiled-build.ts";
import { testReleaseKeys } from "../helpers/released-build.ts";
import { signerFromEnv, signerFromPem } from "../../release/signing.ts";
import { writeReleaseFiles } from "../../release/release.ts";
import {
  canonicalJson,
  hostPlatformKey,
  installedPlatformKey,
  platformKey,
  publicKeyId,
  verifySignedManifest,
  type ReleaseManifest,
  type SignedManifest,
} from "../../src/update/manifest.ts";
import { embeddedUpdatePublicKey } from "../../src/update/update-key.ts";
import { sha256Of } from "../update/release-fixtures.ts";
import { makeRelease, makeTestKeyPair, scriptRelease, TempDirs, versionScript, type TestRelease } from "./release-fixture.ts";

const root = join(import.meta.dir, "..", "..");
const temps = new TempDirs();
let release: TestRelease;
let signed: SignedManifest;

beforeAll(async () => {
  release = await makeRelease(temps);
  signed = JSON.parse(readFileSync(join(release.dir, "stable.json"), "utf8")) as SignedManifest;
}, 120_000);

afterAll(() => temps.removeAll());

const clone = <T>(value: T): T => structuredClone(value);

/**
 * Whether the file holds `needle`, read through one 1 MB buffer that keeps the last bytes of the chunk
 * before (a match may straddle two): reading a 120 MB executable whole takes half a second.
 */
function fileIncludes(path: string, needle: Buffer): boolean {
  const overlap = needle.length - 1;
  const buffer = Buffer.allocUnsafe((1 << 20) + overlap);
  const fd = openSync(path, "r");
  try {
    for (let kept = 0; ; ) {
      const read = readSync(fd, buffer, kept, buffer.length - kept, null);
      if (read === 0) return false;
      const filled = kept + read;
      if (buffer.subarray(0, filled).includes(needle)) return true;
      kept = Math.min(overlap, filled);
      buffer.copy(buffer, 0, filled - kept, filled);
    }
  } finally {
    closeSync(fd);
  }
}

/** Runs the release script with only the given key settings (none from the developer's environment). */
async function runRelease(args: string[], keyEnv: Record<string, string>) {
  const env: Record<string, string | undefined> = { ...process.env, ...keyEnv };
  for (const name of ["ATRIUM_RELEASE_KEY", "ATRIUM_RELEASE_KEY_FILE"]) if (!(name in keyEnv)) delete env[name];
  const child = Bun.spawn([process.execPath, join(root, "release", "release.ts"), ...args], {
    cwd: root,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

describe("npm run release", () => {
  test("writes the executable, SHA256SUMS, the manifest and install.sh, and nothing else", () => {
    expect(readdirSync(release.dir).sort()).toEqual(["SHA256SUMS", `atrium-${release.hostKey}`, "install.sh", "stable.json"].sort());
    expect(readFileSync(join(release.dir, "install.sh"), "utf8")).toBe(readFileSync(join(root, "install.sh"), "utf8"));
  });

  test("the executable runs and prints the release version", async () => {
    const child = Bun.spawn([release.binary, "--version"], { stdout: "pipe", stderr: "pipe" });
    expect((await new Response(child.stdout).text()).trim()).toBe(release.version);
    expect(await child.exited).toBe(0);
  });

  test("SHA256SUMS matches the files, in the format sha256sum -c reads", () => {
    const text = readFileSync(join(release.dir, "SHA256SUMS"), "utf8");
    expect(text).toBe(`${sha256Of(release.binary)}  atrium-${release.hostKey}\n`);
    const sha256sum = Bun.which("sha256sum") ? ["sha256sum", "-c", "--quiet"] : Bun.which("shasum") ? ["shasum", "-a", "256", "-c", "--quiet"] : null;
    if (sha256sum) {
      const check = Bun.spawnSync([...sha256sum, "SHA256SUMS"], { cwd: release.dir });
      expect(check.exitCode).toBe(0);
    }
  });

  test("the manifest is canonical JSON on one line, signed by the release key, and describes the release", () => {
    const text = readFileSync(join(release.dir, "stable.json"), "utf8");
    expect(text).toBe(`${canonicalJson(signed)}\n`);
    const manifest = verifySignedManifest(signed, release.keys.publicKeyPem);
    const expected: ReleaseManifest = {
      channel: "stable",
      version: release.version,
      buildNumber: release.buildNumber,
      publishedAt: release.publishedAt,
      notes: release.notes,
      minServiceVersion: null,
      files: {
        [release.hostKey]: {
          name: `atrium-${release.hostKey}`,
          url: `atrium-${release.hostKey}`,
          size: statSync(release.binary).size,
          sha256: sha256Of(release.binary),
        },
      },
    };
    expect(manifest).toEqual(expected);
    expect(signed.keyId).toBe(publicKeyId(release.keys.publicKeyPem));
    expect(signed.keyId).toMatch(/^[0-9a-f]{16}$/);
  });

  test("a tampered manifest, another key or a bad shape fails verification with a clear message", () => {
    const tamperings: Array<(copy: SignedManifest) => void> = [
      (copy) => (copy.manifest.files[release.hostKey]!.sha256 = "0".repeat(64)),
      (copy) => (copy.manifest.files[release.hostKey]!.url = "https://elsewhere.example/atrium"),
      (copy) => (copy.manifest.version = "9.9.9"),
      (copy) => (copy.manifest.notes += " "),
      (copy) => (copy.signature = Buffer.from("x".repeat(64)).toString("base64")),
    ];
    for (const tamper of tamperings) {
      const copy = clone(signed);
      tamper(copy);
      expect(() => verifySignedManifest(copy, release.keys.publicKeyPem)).toThrow(/signature does not match/);
    }

    const other = makeTestKeyPair();
    expect(() => verifySignedManifest(signed, other.publicKeyPem)).toThrow(`signed by key ${signed.keyId}, but this build trusts key`);
    // Claiming the trusted key's id does not help a manifest signed by another key.
    const forged = signerFromPem(other.privateKeyPem).sign(clone(signed.manifest));
    expect(() => verifySignedManifest({ ...forged, keyId: signed.keyId }, release.keys.publicKeyPem)).toThrow(/signature does not match/);

    // Correctly signed but not a manifest: the shape is checked after the signature.
    const wrongShape = release.signer.sign({ ...clone(signed.manifest), buildNumber: "900" } as unknown as ReleaseManifest);
    expect(() => verifySignedManifest(wrongShape, release.keys.publicKeyPem)).toThrow("release manifest is malformed at /manifest/buildNumber");
    expect(() => verifySignedManifest("{}", release.keys.publicKeyPem)).toThrow("not a JSON object");
    expect(() => verifySignedManifest({ manifest: {} }, release.keys.publicKeyPem)).toThrow("no signature or keyId");
  });

  test("a build embeds the public key and target it is given (what the release passes to compileBinary)", async () => {
    const probe = await compiledBuild({
      entrypoints: [join(import.meta.dir, "fixtures", "print-update-key.ts")],
      version: "0.0.0",
      buildNumber: 0,
      channel: "stable",
      platformKey: "linux-x64-musl",
      updatePublicKey: testReleaseKeys.publicKeyPem,
    });
    const child = Bun.spawn([probe], { stdout: "pipe" });
    expect(JSON.parse(await new Response(child.stdout).text())).toEqual({ publicKey: testReleaseKeys.publicKeyPem, platformKey: "linux-x64-musl" });
    // From source there is no key: such a run cannot update itself.
    expect(embeddedUpdatePublicKey()).toBeNull();
  }, 60_000);

  test("the release executable carries the release public key", () => {
    const body = release.keys.publicKeyPem
      .split("\n")
      .filter((line) => line && !line.startsWith("-----"))
      .join("");
    expect(fileIncludes(release.binary, Buffer.from(body))).toBe(true);
  });

  test("refuses to run without a signing key, or with a bad channel or target", async () => {
    const env = { ATRIUM_RELEASE_KEY: release.keys.privateKeyPem };
    // Independent runs, started together.
    const [noKey, keyFile, channel, target, buildNumber] = await Promise.all([
      runRelease(["--targets", "linux-x64"], {}),
      runRelease(["--targets", "linux-x64"], { ATRIUM_RELEASE_KEY_FILE: "/nonexistent/key.pem" }),
      runRelease(["--channel", "beta"], env),
      runRelease(["--targets", "linux-x64,windows-x64"], env),
      runRelease(["--build-number", "1.5"], env),
    ]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("no release signing key: set ATRIUM_RELEASE_KEY");
    expect(keyFile.stderr).toContain("ATRIUM_RELEASE_KEY_FILE=/nonexistent/key.pem cannot be read");
    expect(channel.stderr).toContain("--channel beta is not one of stable, alpha");
    expect(target.stderr).toContain("--targets: windows-x64 is not one of");
    expect(buildNumber.stderr).toContain("--build-number 1.5 is not a whole number");
  });

  test("signing keys: from a file or the environment, Ed25519 only", () => {
    expect(signerFromEnv({ ATRIUM_RELEASE_KEY: release.keys.privateKeyPem }).publicKeyPem).toBe(release.keys.publicKeyPem);
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    expect(() => signerFromPem(rsa)).toThrow("is a rsa key; releases are signed with Ed25519");
    expect(() => signerFromPem("not a key")).toThrow("is not a PEM private key");
  });

  test("with a base URL the files are named by URL; an alpha release writes alpha.json", async () => {
    const dir = temps.make("atrium-alpha-");
    await scriptRelease(dir, {
      hostKey: "linux-arm64",
      signer: release.signer,
      version: "1.0.0-alpha.1",
      buildNumber: 901,
      script: versionScript("1.0.0-alpha.1"),
      channel: "alpha",
      baseUrl: "https://downloads.example/atrium/1.0.0-alpha.1-901/",
    });
    expect(existsSync(join(dir, "stable.json"))).toBe(false);
    const manifest = verifySignedManifest(JSON.parse(readFileSync(join(dir, "alpha.json"), "utf8")), release.keys.publicKeyPem);
    expect(manifest.channel).toBe("alpha");
    expect(manifest.files["linux-arm64"]!.url).toBe("https://downloads.example/atrium/1.0.0-alpha.1-901/atrium-linux-arm64");
    await expect(writeReleaseFiles(dir, [{ key: "linux-x64", name: "../x" }], manifest, null, release.signer)).rejects.toThrow("plain file name");
  });
});

describe("manifest helpers", () => {
  test("canonicalJson sorts keys at every depth and has no whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: "x y" }, u: undefined })).toBe('{"a":{"c":"x y","d":[3,{"y":null,"z":true}]},"b":1}');
    expect(canonicalJson('say "hi"\n')).toBe('"say \\"hi\\"\\n"');
    expect(JSON.parse(canonicalJson(signed))).toEqual(signed);
  });

  test("platformKey names os-arch as the manifest does", () => {
    expect(platformKey("linux", "x64")).toBe("linux-x64");
    expect(platformKey("linux", "x64", "musl")).toBe("linux-x64-musl");
    expect(platformKey("linux", "arm64", "glibc")).toBe("linux-arm64");
    expect(platformKey("darwin", "arm64")).toBe("darwin-arm64");
    expect(platformKey()).toBe(`${process.platform}-${process.arch}`);
    // From source, the running executable is this machine's; install.sh (ldd) and Bun's report agree.
    expect(installedPlatformKey()).toBe(hostPlatformKey());
    expect(hostPlatformKey()).toBe(release.hostKey);
  });
});
