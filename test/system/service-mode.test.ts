import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { runAtrium, builtCommand } from "../helpers/cli-process.ts";
import { dataPaths } from "../../src/config/paths.ts";
import { detectServiceMode } from "../../src/system/service-mode.ts";

let dir: ReturnType<typeof makeTempDir>;
let bin: string;
beforeEach(() => {
  dir = makeTempDir("atrium-service-");
  bin = join(dir.path, "bin");
  mkdirSync(bin);
});
afterEach(() => dir.remove());

/** A stand-in for a system tool: a shell script on a PATH of our own. */
function fakeTool(name: string, body: string): void {
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
}

const env = () => ({ PATH: [bin, "/usr/bin", "/bin"].join(":") });

/** systemctl as it answers `show` for a unit installed in one scope only. */
function systemctlWithUnitIn(scope: "user" | "system", active = "active"): void {
  fakeTool(
    "systemctl",
    `asked=system
[ "$1" = --user ] && asked=user
if [ "$asked" = ${scope} ]; then
  printf 'LoadState=loaded\\nActiveState=${active}\\nMainPID=4242\\n'
else
  printf 'LoadState=not-found\\nActiveState=inactive\\nMainPID=0\\n'
fi`,
  );
}

describe("how the server is kept running", () => {
  test("a systemd user unit, then a system unit, is found through systemctl", async () => {
    const paths = dataPaths(join(dir.path, "data"));
    systemctlWithUnitIn("user");
    expect(await detectServiceMode(paths, env())).toEqual({ kind: "systemd-user", unit: "atrium.service", active: true, mainPid: 4242 });
    systemctlWithUnitIn("system", "failed");
    expect(await detectServiceMode(paths, env())).toEqual({ kind: "systemd-system", unit: "atrium.service", active: false, mainPid: 4242 });
  });

  test("without a usable systemctl: install.sh's background process by its pid file, else none", async () => {
    const paths = dataPaths(join(dir.path, "data"));
    // As in a container: systemctl exists but cannot talk to systemd.
    fakeTool("systemctl", 'echo "System has not been booted with systemd as init system (PID 1)." >&2; exit 1');
    expect(await detectServiceMode(paths, env())).toEqual({ kind: "none" });
    mkdirSync(paths.root, { recursive: true });
    writeFileSync(join(paths.root, "atrium.pid"), `${process.pid}\n`);
    expect(await detectServiceMode(paths, env())).toMatchObject({
      kind: "background",
      pid: process.pid,
      active: true,
      logFile: join(paths.logs, "stdout.log"),
    });
    writeFileSync(join(paths.root, "atrium.pid"), "999999999\n");
    expect(await detectServiceMode(paths, env())).toMatchObject({ kind: "background", active: false });
  });

  test("atrium logs reads the journal of a systemd unit; status names the service", async () => {
    systemctlWithUnitIn("user");
    fakeTool("journalctl", 'echo "journal: $*"');
    const home = join(dir.path, "data");
    const logs = await runAtrium(builtCommand, ["logs", "--lines", "5"], home, env());
    expect(logs.code).toBe(0);
    expect(logs.stdout).toBe("journal: --user -u atrium.service -n 5 --no-pager\n");

    const status = await runAtrium(builtCommand, ["status", "--json"], home, env());
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout).service).toEqual({ kind: "systemd-user", unit: "atrium.service", active: true, mainPid: 4242 });
    const human = await runAtrium(builtCommand, ["status"], home, env());
    expect(human.stderr).toContain("systemd user unit atrium.service, active (pid 4242)");
    expect(human.stderr).toContain("systemctl --user start atrium.service");
  });

  test("when journalctl fails, atrium logs falls back to its own log file", async () => {
    systemctlWithUnitIn("user");
    fakeTool("journalctl", "exit 1");
    const home = join(dir.path, "data");
    mkdirSync(join(home, "logs"), { recursive: true });
    writeFileSync(join(home, "logs", "atrium.log"), "line one\nline two\n");
    const logs = await runAtrium(builtCommand, ["logs"], home, env());
    expect(logs.stdout).toBe("line one\nline two\n");
    expect(logs.stderr).toContain("showing Atrium's own log file");
  });
});
