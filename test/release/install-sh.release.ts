import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { processAlive } from "../helpers/processes.ts";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runAtrium } from "../helpers/cli-process.ts";
import { sha256Of } from "../update/release-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { installShPlatformKey, makeTestKeyPair, releaseOfTestBuild, scriptRelease, TempDirs, versionScript, type TestRelease } from "./release-fixture.ts";

const installSh = join(import.meta.dir, "..", "..", "install.sh");

const temps = new TempDirs();
let release: Omit<TestRelease, "output">;
let hostKey: string;
/**
 * Releases made from shell scripts: more versions than one compile gives, and no 120 MB to copy and
 * hash where a test is about what install.sh does with the bytes (the executable only, the unit
 * files). The tests that start a server install the real build.
 */
const releases = { old: "", newer: "", rebuild: "", corrupt: "", channels: "", overtaken: "" };
/** systemctl and launchctl that always fail: no test may reach the developer's real service manager. */
let fakeBin: string;
const dataDirs: string[] = [];

beforeAll(async () => {
  release = await releaseOfTestBuild(temps);
  hostKey = installShPlatformKey();
  const work = temps.make("atrium-install-fixtures-");
  const signer = release.signer;

  releases.old = join(work, "old");
  await scriptRelease(releases.old, { hostKey, signer, version: "0.8.0", buildNumber: 800, script: versionScript("0.8.0") });
  releases.newer = join(work, "newer");
  await scriptRelease(releases.newer, { hostKey, signer, version: "0.9.0", buildNumber: 900, script: versionScript("0.9.0") });

  // A new build of the same version: other bytes, same behaviour (it runs the real executable).
  releases.rebuild = join(work, "rebuild");
  await scriptRelease(releases.rebuild, {
    hostKey,
    signer,
    version: release.version,
    buildNumber: release.buildNumber + 1,
    script: `#!/bin/sh\nexec '${release.binary}' "$@"\n`,
  });

  // The executable changed after the manifest was written (tampered, or a broken upload).
  releases.corrupt = join(work, "corrupt");
  const corrupt = await scriptRelease(releases.corrupt, { hostKey, signer, version: "1.1.0", buildNumber: 1100, script: versionScript("1.1.0") });
  writeFileSync(corrupt, readFileSync(corrupt, "utf8").replace("1.1.0", "6.6.6"));

  // Published trees: stable.json and alpha.json at the top, each release's files in its folder. In the
  // second, a stable release has overtaken the alpha (whose build number is higher).
  const publish = async (tree: string, channel: "stable" | "alpha", version: string, buildNumber: number) => {
    const folder = `releases/${version}-${buildNumber}`;
    await scriptRelease(join(tree, folder), { hostKey, signer, version, buildNumber, script: versionScript(version), channel, baseUrl: folder });
    renameSync(join(tree, folder, `${channel}.json`), join(tree, `${channel}.json`));
  };
  releases.channels = join(work, "channels");
  await publish(releases.channels, "stable", "0.8.0", 800);
  await publish(releases.channels, "alpha", "0.9.0-alpha.1", 790);
  releases.overtaken = join(work, "overtaken");
  await publish(releases.overtaken, "alpha", "0.9.0-alpha.1", 950);
  await publish(releases.overtaken, "stable", "0.9.0", 900);

  fakeBin = join(work, "fake-bin");
  mkdirSync(fakeBin);
  for (const tool of ["systemctl", "launchctl"]) {
    writeFileSync(join(fakeBin, tool), '#!/bin/sh\necho "$0: not usable in this test" >&2\nexit 1\n');
    chmodSync(join(fakeBin, tool), 0o755);
  }
}, 120_000);

afterAll(async () => {
  // Background servers started by install.sh: by its pid file, and whatever holds the data dir lock.
  for (const dir of dataDirs) {
    for (const file of ["atrium.pid", "server.lock"]) {
      // The pid is the first line (the lock's second line is its start mark).
      const pid = Number(existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8").split("\n")[0] : NaN);
      if (Number.isInteger(pid) && pid > 0) await stop(pid);
    }
  }
  temps.removeAll();
});

async function stop(pid: number): Promise<void> {
  if (!processAlive(pid)) return;
  process.kill(pid, "SIGTERM");
  await until(
    async () => processAlive(pid),
    (running) => !running,
    5000,
  ).catch(() => process.kill(pid, "SIGKILL"));
}

interface Machine {
  home: string;
  prefix: string;
  data: string;
  binary: string;
}

/** A fresh home directory with its own data dir; the server there binds a free port. */
function machine(): Machine {
  const home = temps.make("atrium-install-home-");
  const data = join(home, "atrium-data");
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, "config.json"), JSON.stringify({ port: 0 }));
  dataDirs.push(data);
  const prefix = join(home, ".local");
  return { home, prefix, data, binary: join(prefix, "bin", "atrium") };
}

async function install(m: Machine, args: string[], extraEnv: Record<string, string> = {}) {
  const env: Record<string, string | undefined> = {};
  // Nothing of the developer's own setup: no XDG dirs, no ATRIUM_* settings.
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith("XDG_") && !name.startsWith("ATRIUM_")) env[name] = value;
  }
  Object.assign(env, { HOME: m.home, ATRIUM_HOME: m.data, PATH: `${fakeBin}:${process.env.PATH}` }, extraEnv);
  const child = Bun.spawn(["sh", installSh, ...args], { env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code, output: stdout + stderr };
}

async function version(binary: string): Promise<string> {
  const child = Bun.spawn([binary, "--version"], { stdout: "pipe" });
  return (await new Response(child.stdout).text()).trim();
}

const manifestSha = (dir: string, channel = "stable") =>
  (JSON.parse(readFileSync(join(dir, `${channel}.json`), "utf8")) as { manifest: { files: Record<string, { sha256: string }> } }).manifest.files[hostKey]!
    .sha256;

const systemdAnalyze = Bun.which("systemd-analyze");

describe("install.sh", () => {
  test("passes shellcheck where it is installed", () => {
    const shellcheck = Bun.which("shellcheck");
    if (!shellcheck) return;
    const result = Bun.spawnSync([shellcheck, "-s", "sh", installSh]);
    expect(result.stdout.toString()).toBe("");
    expect(result.exitCode).toBe(0);
  });

  describe("--no-service: the executable only", () => {
    const m = machine();

    test("installs from a local release directory into the prefix", async () => {
      const result = await install(m, ["--base-url", releases.old, "--prefix", m.prefix, "--no-service"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`installed ${m.binary}`);
      expect(sha256Of(m.binary)).toBe(manifestSha(releases.old));
      expect(statSync(m.binary).mode & 0o111).toBe(0o111);
      expect(await version(m.binary)).toBe("0.8.0");
      expect(readdirSync(join(m.prefix, "bin"))).toEqual(["atrium"]); // no staged leftovers
      expect(existsSync(join(m.home, ".config", "systemd"))).toBe(false);
      expect(existsSync(join(m.data, "atrium.pid"))).toBe(false);
    });

    test("a second run upgrades in place to the newer release (a file:// URL works too)", async () => {
      const result = await install(m, ["--base-url", `file://${releases.newer}`, "--prefix", m.prefix, "--no-service"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("atrium 0.9.0 (build 900)");
      expect(sha256Of(m.binary)).toBe(manifestSha(releases.newer));
      expect(await version(m.binary)).toBe("0.9.0");
      expect(readdirSync(join(m.prefix, "bin"))).toEqual(["atrium"]);
    });

    test("a download whose sha256 differs from the manifest is refused and the old executable stays", async () => {
      const before = sha256Of(m.binary);
      const result = await install(m, ["--base-url", releases.corrupt, "--prefix", m.prefix, "--no-service"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("sha256 mismatch");
      expect(result.stderr).toContain("not installed");
      expect(sha256Of(m.binary)).toBe(before);
      expect(readdirSync(join(m.prefix, "bin"))).toEqual(["atrium"]);
    });

    test("the same release again changes nothing", async () => {
      const mtime = statSync(m.binary).mtimeMs;
      const result = await install(m, ["--base-url", releases.newer, "--prefix", m.prefix, "--no-service"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("is already atrium 0.9.0 (build 900)");
      expect(statSync(m.binary).mtimeMs).toBe(mtime);
    });

    test.skipIf(!Bun.which("openssl"))("--public-key checks the manifest signature", async () => {
      const keys = join(temps.make("atrium-keys-"), "release.pub");
      writeFileSync(keys, release.keys.publicKeyPem);
      const good = await install(m, ["--base-url", releases.old, "--prefix", m.prefix, "--no-service", "--public-key", keys]);
      expect(good.code).toBe(0);
      expect(await version(m.binary)).toBe("0.8.0");
      writeFileSync(keys, makeTestKeyPair().publicKeyPem);
      const bad = await install(m, ["--base-url", release.dir, "--prefix", m.prefix, "--no-service", "--public-key", keys]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("the signature of stable.json does not match the public key");
      expect(await version(m.binary)).toBe("0.8.0");
    });

    test("--channel alpha takes the newer of alpha.json and stable.json; files may live in subfolders", async () => {
      const other = machine();
      const stable = await install(other, ["--base-url", releases.channels, "--no-service"]);
      expect(stable.code).toBe(0);
      expect(await version(other.binary)).toBe("0.8.0"); // --prefix defaults to ~/.local
      // Across channels the version decides, not the build number (as the server's updater does).
      const alpha = await install(other, ["--base-url", releases.channels, "--no-service", "--channel", "alpha"]);
      expect(alpha.code).toBe(0);
      expect(await version(other.binary)).toBe("0.9.0-alpha.1");
      const overtaken = await install(other, ["--base-url", releases.overtaken, "--no-service", "--channel", "alpha"]);
      expect(overtaken.code).toBe(0);
      expect(await version(other.binary)).toBe("0.9.0");
    });

    test.skipIf(!Bun.which("curl") && !Bun.which("wget"))("downloads over HTTP", async () => {
      const server = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: (request) => {
          const file = Bun.file(join(releases.channels, new URL(request.url).pathname));
          return file.size > 0 ? new Response(file) : new Response("not found", { status: 404 });
        },
      });
      try {
        const other = machine();
        const result = await install(other, ["--base-url", `http://127.0.0.1:${server.port}/`, "--no-service"]);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(`from http://127.0.0.1:${server.port}/releases/0.8.0-800/atrium-${hostKey}`);
        expect(await version(other.binary)).toBe("0.8.0");
        const missing = await install(other, ["--base-url", `http://127.0.0.1:${server.port}/nothing-here`, "--no-service"]);
        expect(missing.code).toBe(1);
        expect(missing.stderr).toContain("could not get stable.json from http://");
      } finally {
        server.stop(true);
      }
    });

    test("says so when the release has no build for this machine", async () => {
      const result = await install(machine(), ["--base-url", releases.old, "--no-service"], { ATRIUM_PLATFORM: "linux-riscv64" });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("release 0.8.0 (build 800) has no executable for linux-riscv64");
    });
  });

  describe("the service: a systemd user unit, and a background process where systemctl cannot be used", () => {
    const m = machine();
    const toolDir = join(m.home, "tools", "bin");
    let firstPid = 0;

    test("writes the unit and, systemctl being unusable, starts atrium serve in the background", async () => {
      mkdirSync(toolDir, { recursive: true });
      const result = await install(m, ["--base-url", release.dir], { PATH: `${fakeBin}:${toolDir}:${process.env.PATH}` });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("systemctl --user cannot be used here; starting atrium as a background process instead");

      const unitFile = join(m.home, ".config", "systemd", "user", "atrium.service");
      const unit = readFileSync(unitFile, "utf8");
      expect(unit).toContain(`ExecStart="${m.binary}" serve\n`);
      expect(unit).toContain("Restart=on-failure\n");
      expect(unit).toContain("RestartForceExitStatus=75\n");
      expect(unit).toContain(`Environment="ATRIUM_HOME=${m.data}"\n`);
      expect(unit).toContain("WantedBy=default.target\n");
      const path = /^Environment="PATH=([^"]+)"$/m.exec(unit)?.[1]?.split(":") ?? [];
      expect(path[0]).toBe(join(m.prefix, "bin"));
      for (const dir of [
        toolDir,
        join(m.home, ".local", "bin"),
        join(m.home, ".bun", "bin"),
        join(m.home, ".npm-global", "bin"),
        "/usr/local/bin",
        "/opt/homebrew/bin",
        "/usr/bin",
        "/bin",
      ]) {
        expect(path).toContain(dir);
      }
      expect(path.some((dir) => dir.includes("node_modules"))).toBe(false);
      if (systemdAnalyze) {
        const verify = Bun.spawnSync([systemdAnalyze, "verify", unitFile], { stderr: "pipe" });
        expect(verify.stderr.toString()).toBe("");
        expect(verify.exitCode).toBe(0);
      }

      firstPid = Number(readFileSync(join(m.data, "atrium.pid"), "utf8"));
      expect(processAlive(firstPid)).toBe(true);
      expect(readFileSync(join(m.data, "logs", "stdout.log"), "utf8")).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/m);
      // machine() made the data dir with the test's umask (0755): install.sh narrows it.
      const modes = Object.fromEntries(["", "logs", "logs/stdout.log", "atrium.pid"].map((name) => [name, statSync(join(m.data, name)).mode & 0o777]));
      expect(modes).toEqual({ "": 0o700, logs: 0o700, "logs/stdout.log": 0o600, "atrium.pid": 0o600 });
      const status = await runAtrium([m.binary], ["status", "--json"], m.data);
      expect(status.code).toBe(0);
      const report = JSON.parse(status.stdout) as { running: boolean; health: { process: { pid: number }; release: { version: string } } };
      expect(report.health.process.pid).toBe(firstPid);
      expect(report.health.release.version).toBe(release.version);
    });

    test("a second run with a new build replaces the executable and restarts the background server", async () => {
      const result = await install(m, ["--base-url", releases.rebuild]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`stopping atrium (pid ${firstPid})`);
      expect(sha256Of(m.binary)).toBe(manifestSha(releases.rebuild));
      expect(processAlive(firstPid)).toBe(false);
      const secondPid = Number(readFileSync(join(m.data, "atrium.pid"), "utf8"));
      expect(secondPid).not.toBe(firstPid);
      const status = await runAtrium([m.binary], ["status", "--json"], m.data);
      expect((JSON.parse(status.stdout) as { health: { process: { pid: number } } }).health.process.pid).toBe(secondPid);

      // Nothing new: the running server is left alone.
      const again = await install(m, ["--base-url", releases.rebuild]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`atrium is already running in the background (pid ${secondPid})`);
      expect(processAlive(secondPid)).toBe(true);
    });

    test("--system writes a system unit that runs as the invoking user", async () => {
      const other = machine();
      const unitDir = join(other.home, "etc-systemd-system");
      const user = Bun.spawnSync(["id", "-un"]).stdout.toString().trim();
      const result = await install(other, ["--base-url", releases.old, "--system", "--prefix", other.prefix, "--no-start"], {
        ATRIUM_SYSTEM_UNIT_DIR: unitDir,
        SUDO_USER: user,
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("not started (--no-start)");
      const unitFile = join(unitDir, "atrium.service");
      const unit = readFileSync(unitFile, "utf8");
      expect(unit).toContain(`ExecStart="${other.binary}" serve\n`);
      expect(unit).toContain(`User=${user}\n`);
      expect(unit).toContain("WantedBy=multi-user.target\n");
      expect(unit).toContain("After=network-online.target\n");
      if (systemdAnalyze) expect(Bun.spawnSync([systemdAnalyze, "verify", unitFile]).exitCode).toBe(0);
      expect(existsSync(join(other.data, "atrium.pid"))).toBe(false);
    });

    test("on macOS it writes a launchd agent (written here with the platform forced; not loaded)", async () => {
      const other = machine();
      const darwin = temps.make("atrium-darwin-release-");
      await scriptRelease(darwin, { hostKey: "darwin-arm64", signer: release.signer, version: "0.8.0", buildNumber: 800, script: versionScript("0.8.0") });
      const result = await install(other, ["--base-url", darwin, "--no-start"], { ATRIUM_PLATFORM: "darwin-arm64" });
      expect(result.code).toBe(0);
      const plist = readFileSync(join(other.home, "Library", "LaunchAgents", "dev.atrium.server.plist"), "utf8");
      expect(plist).toContain(`<string>${other.binary}</string>\n\t\t<string>serve</string>`);
      expect(plist).toMatch(/<key>KeepAlive<\/key>\s*<dict>\s*<key>SuccessfulExit<\/key>\s*<false\/>/);
      expect(plist).toContain(`<key>ATRIUM_HOME</key>\n\t\t<string>${other.data}</string>`);
      expect(plist).toContain(`<string>${join(other.data, "logs", "stdout.log")}</string>`);
      expect(plist).toMatch(/<key>PATH<\/key>\s*<string>[^<]*\/usr\/bin[^<]*<\/string>/);
    });
  });
});
