import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "../process/run-command.ts";
import type { DataPaths } from "../config/paths.ts";

/** The names install.sh gives the service. */
export const SYSTEMD_UNIT = "atrium.service";
export const LAUNCHD_LABEL = "dev.atrium.server";

/** How Atrium is kept running on this machine, as install.sh set it up. */
export type ServiceMode =
  | { kind: "systemd-user" | "systemd-system"; unit: string; active: boolean; mainPid: number | null }
  | { kind: "launchd"; label: string; active: boolean; mainPid: number | null }
  | { kind: "background"; pidFile: string; logFile: string; pid: number; active: boolean }
  | { kind: "none" };

const PROBE_TIMEOUT_MS = 3000;

/**
 * Finds the service: the systemd user unit, the system unit, the launchd agent, or the background
 * process install.sh starts where no service manager is usable (its pid file in the data dir). A
 * service manager that cannot be asked counts as absent.
 */
export async function detectServiceMode(paths: DataPaths, env: Record<string, string | undefined> = process.env): Promise<ServiceMode> {
  for (const scope of ["user", "system"] as const) {
    const unit = await systemdUnit(scope, env);
    if (unit) return unit;
  }
  const agent = await launchdAgent(env);
  if (agent) return agent;
  const pidFile = join(paths.root, "atrium.pid");
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    if (Number.isInteger(pid) && pid > 0) {
      return { kind: "background", pidFile, logFile: join(paths.logs, "stdout.log"), pid, active: isAlive(pid) };
    }
  }
  return { kind: "none" };
}

/** Runs a tool found on the PATH of `env`; undefined when it is missing, fails or hangs. */
async function ask(command: string[], env: Record<string, string | undefined>): Promise<string | undefined> {
  const executable = Bun.which(command[0]!, { PATH: env.PATH ?? "" });
  if (!executable) return undefined;
  const answer = await runCommand([executable, ...command.slice(1)], { env, timeoutMs: PROBE_TIMEOUT_MS }).catch(() => undefined);
  return answer && answer.code === 0 ? answer.stdout : undefined;
}

async function systemdUnit(scope: "user" | "system", env: Record<string, string | undefined>): Promise<ServiceMode | undefined> {
  const args = ["systemctl", ...(scope === "user" ? ["--user"] : []), "show", SYSTEMD_UNIT, "--property=LoadState,ActiveState,MainPID"];
  const answer = await ask(args, env);
  if (answer === undefined) return undefined;
  const properties = Object.fromEntries(
    answer
      .split("\n")
      .map((line) => line.split("="))
      .filter((parts) => parts.length >= 2)
      .map(([key, ...value]) => [key!.trim(), value.join("=").trim()]),
  );
  if (properties.LoadState !== "loaded") return undefined;
  const mainPid = Number(properties.MainPID);
  return {
    kind: scope === "user" ? "systemd-user" : "systemd-system",
    unit: SYSTEMD_UNIT,
    active: properties.ActiveState === "active",
    mainPid: mainPid > 0 ? mainPid : null,
  };
}

async function launchdAgent(env: Record<string, string | undefined>): Promise<ServiceMode | undefined> {
  if (process.platform !== "darwin") return undefined;
  const answer = await ask(["launchctl", "list", LAUNCHD_LABEL], env);
  if (answer === undefined) return undefined;
  const pid = /"PID"\s*=\s*(\d+)/.exec(answer)?.[1];
  return { kind: "launchd", label: LAUNCHD_LABEL, active: pid !== undefined, mainPid: pid ? Number(pid) : null };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** One line for people: what keeps the server running. */
export function describeServiceMode(mode: ServiceMode): string {
  switch (mode.kind) {
    case "systemd-user":
    case "systemd-system":
      return `systemd ${mode.kind === "systemd-user" ? "user" : "system"} unit ${mode.unit}, ${mode.active ? "active" : "inactive"}${mode.mainPid ? ` (pid ${mode.mainPid})` : ""}`;
    case "launchd":
      return `launchd agent ${mode.label}, ${mode.active ? "running" : "not running"}${mode.mainPid ? ` (pid ${mode.mainPid})` : ""}`;
    case "background":
      return `background process ${mode.pid} (${mode.active ? "running" : "not running"}), pid file ${mode.pidFile}, output ${mode.logFile}`;
    case "none":
      return "not installed as a service (started by hand)";
  }
}
