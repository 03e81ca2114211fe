import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { UpdateChecker } from "../../src/update/update-checker.ts";
import { compareReleases } from "../../src/update/release-order.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { PLATFORM, startReleaseHost, testSigner, writeRelease } from "./release-fixtures.ts";

const signer = testSigner();
const otherSigner = testSigner();
const dir = makeTempDir("atrium-update-check-");
const host = startReleaseHost();
const installed = { version: "1.0.0", buildNumber: 10, channel: "stable" };
const executable = join(dir.path, "fake-atrium");
writeFileSync(executable, "#!/bin/sh\necho 1.1.0\n", { mode: 0o755 });

const checker = (baseUrl: string, overrides: Partial<ConstructorParameters<typeof UpdateChecker>[0]> = {}) =>
  new UpdateChecker({ baseUrl, publicKey: signer.publicKeyPem, installed, platformKey: PLATFORM, timeoutMs: 5_000, ...overrides });

beforeAll(async () => {
  await writeRelease(join(dir.path, "newer"), { executable, version: "1.1.0", buildNumber: 11, signer });
  await writeRelease(join(dir.path, "same"), { executable, version: "1.0.0", buildNumber: 10, signer });
  await writeRelease(join(dir.path, "other-key"), { executable, version: "1.1.0", buildNumber: 11, signer: otherSigner });
  await writeRelease(join(dir.path, "both"), { executable, version: "1.1.0", buildNumber: 12, signer });
  await writeRelease(join(dir.path, "both"), { executable, version: "1.2.0-alpha.1", buildNumber: 11, channel: "alpha", signer });
  await writeRelease(join(dir.path, "tampered"), { executable, version: "1.1.0", buildNumber: 11, signer });
  const tampered = join(dir.path, "tampered", "stable.json");
  writeFileSync(tampered, (await Bun.file(tampered).text()).replace('"buildNumber":11', '"buildNumber":99'));
  await writeRelease(join(dir.path, "no-platform"), {
    executable,
    version: "1.1.0",
    buildNumber: 11,
    signer,
    alter: (manifest) => {
      manifest.files = { "plan9-mips": manifest.files[PLATFORM]! };
    },
  });
  await writeRelease(join(dir.path, "needs-newer"), {
    executable,
    version: "2.0.0",
    buildNumber: 20,
    signer,
    alter: (manifest) => {
      manifest.minServiceVersion = "1.5.0";
    },
  });
});

afterAll(() => {
  host.stop();
  dir.remove();
});

describe("update check", () => {
  test("finds a newer stable build in a file:// release folder, with its file URL beside the manifest", async () => {
    const result = await checker(pathToFileURL(join(dir.path, "newer")).href).check("stable");
    expect(result.detail).toBeUndefined();
    expect(result.latest?.version).toBe("1.1.0");
    expect(result.target?.file.name).toBe(`atrium-${PLATFORM}`);
    expect(result.target?.fileUrl.href).toBe(pathToFileURL(join(dir.path, "newer", `atrium-${PLATFORM}`)).href);
  });

  test("reads a release over loopback http, and a plain folder path", async () => {
    host.root = join(dir.path, "newer");
    const overHttp = await checker(host.url).check("stable");
    expect(overHttp.target?.fileUrl.href).toBe(`${host.url}atrium-${PLATFORM}`);
    const fromFolder = await checker(join(dir.path, "newer")).check("stable");
    expect(fromFolder.target?.release.buildNumber).toBe(11);
  });

  test("the same build is up to date: no target and nothing to explain", async () => {
    const result = await checker(join(dir.path, "same")).check("stable");
    expect(result.latest?.buildNumber).toBe(10);
    expect(result.target).toBeUndefined();
    expect(result.detail).toBeUndefined();
  });

  test("alpha considers both channels and takes the newer release; stable ignores alpha", async () => {
    const base = join(dir.path, "both");
    const alpha = await checker(base).check("alpha");
    expect(alpha.latest?.version).toBe("1.2.0-alpha.1");
    expect(alpha.latest?.channel).toBe("alpha");
    const stable = await checker(base).check("stable");
    expect(stable.latest?.version).toBe("1.1.0");
    // Before the first alpha there is only stable.json: alpha takes stable.
    const onlyStable = await checker(join(dir.path, "newer")).check("alpha");
    expect(onlyStable.latest?.channel).toBe("stable");
  });

  test("orders by build number within a channel and by version across channels", () => {
    expect(compareReleases({ version: "1.0.0", buildNumber: 5, channel: "stable" }, { version: "1.1.0", buildNumber: 4, channel: "stable" })).toBeGreaterThan(
      0,
    );
    expect(
      compareReleases({ version: "1.2.9", buildNumber: 50, channel: "stable" }, { version: "1.3.0-alpha.2", buildNumber: 48, channel: "alpha" }),
    ).toBeLessThan(0);
    expect(
      compareReleases({ version: "1.3.0", buildNumber: 51, channel: "stable" }, { version: "1.3.0-alpha.2", buildNumber: 48, channel: "alpha" }),
    ).toBeGreaterThan(0);
  });

  test("a manifest signed by another key, or changed after signing, fails the check and says why", async () => {
    const otherKey = await checker(join(dir.path, "other-key")).check("stable");
    expect(otherKey.target).toBeUndefined();
    expect(otherKey.latest).toBeUndefined();
    expect(otherKey.detail).toContain(`signed by key ${otherSigner.keyId}, but this build trusts key ${signer.keyId}`);
    const tampered = await checker(join(dir.path, "tampered")).check("stable");
    expect(tampered.detail).toContain("signature does not match");
  });

  test("no release there, plain http beyond loopback, and a build without a key are explained", async () => {
    host.root = join(dir.path, "empty-nothing-here");
    expect((await checker(host.url).check("stable")).detail).toContain("there is no stable.json");
    expect((await checker("http://example.com/releases").check("stable")).detail).toContain("plain http is only used on loopback");
    expect((await checker(host.url, { publicKey: null }).check("stable")).detail).toContain("no update key");
  });

  test("a release without this platform, or one that needs a newer installed version, is not offered", async () => {
    const noPlatform = await checker(join(dir.path, "no-platform")).check("stable");
    expect(noPlatform.target).toBeUndefined();
    expect(noPlatform.detail).toContain(`has no executable for ${PLATFORM}`);
    const needsNewer = await checker(join(dir.path, "needs-newer")).check("stable");
    expect(needsNewer.target).toBeUndefined();
    expect(needsNewer.detail).toContain("needs 1.5.0 or later");
  });
});
