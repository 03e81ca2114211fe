import { defineCommand } from "citty";
import type { Health, ServerInfo } from "../schemas/system.ts";
import type { Harness } from "../schemas/harnesses.ts";
import { describeServiceMode, detectServiceMode, type ServiceMode } from "../system/service-mode.ts";
import { cliPaths, runCli } from "./cli-context.ts";
import { serverClient } from "./server-client.ts";

export interface StatusReport {
  running: boolean;
  url: string;
  /** Where other devices reach it, best first; never a wildcard (docs/remote-access.md). */
  reachableUrls: string[];
  /** What keeps the server running: a systemd unit, a launchd agent, install.sh's background process. */
  service: ServiceMode;
  health?: Health;
  info?: ServerInfo;
  harnesses?: HarnessSummary[];
  error?: string;
}

/** What status shows of each harness: is it usable, which version, is it logged in. */
export interface HarnessSummary {
  id: string;
  name: string;
  enabled: boolean;
  readiness: { state: string; version: string | null; detail: string | null };
  auth: { state: string; detail: string | null };
}

const summarize = (harness: Harness): HarnessSummary => ({
  id: harness.id,
  name: harness.name,
  enabled: harness.enabled,
  readiness: { state: harness.readiness.state, version: harness.readiness.version, detail: harness.readiness.detail },
  auth: { state: harness.auth.state, detail: harness.auth.detail },
});

/** Asks the running server (found through server.json, else the configured address) how it is. */
export async function readStatus(): Promise<StatusReport> {
  const server = serverClient();
  const { url, reachableUrls } = server;
  const service = await detectServiceMode(cliPaths());
  try {
    const [health, info, harnesses] = await Promise.all([
      server.json<Health>("GET", "/v1/health"),
      server.json<ServerInfo>("GET", "/v1/info"),
      // Not served while the database migrates; the server still runs and says so in health.
      server.json<Harness[]>("GET", "/v1/harnesses").catch(() => undefined),
    ]);
    return { running: true, url, reachableUrls, service, health, info, harnesses: harnesses?.map(summarize) };
  } catch (error) {
    const cause = (error as Error).name === "TimeoutError" ? "it did not answer in time" : (error as Error).message;
    return { running: false, url, reachableUrls: [], service, error: `atrium is not running at ${url} (${cause})` };
  }
}

function printHuman(report: StatusReport): void {
  if (!report.running || !report.health || !report.info) {
    process.stderr.write(`${report.error}\n  service    ${describeServiceMode(report.service)}\nStart it with \`${startCommand(report.service)}\`.\n`);
    return;
  }
  const { health, info } = report;
  const lines = [
    `atrium ${health.release.version} (build ${health.release.buildNumber}, ${health.release.channel}) is ${health.status === "ok" ? "running" : "degraded"}`,
    `  url        ${report.url}`,
    ...report.reachableUrls.filter((reachable) => reachable !== report.url).map((reachable) => `  reachable  ${reachable}`),
    `  pid        ${health.process.pid}, up ${Math.round(health.process.uptimeSeconds)} s`,
    `  database   ${health.database.state}, schema ${health.database.schemaVersion}, ${health.database.journalMode}`,
    ...(health.migration.state === "idle" ? [] : [`  migration  ${describeMigration(health.migration)}`]),
    `  server     ${info.serverId} on ${info.hostname} (${info.platform}-${info.architecture})`,
    `  service    ${describeServiceMode(report.service)}`,
    "  harnesses",
    ...(report.harnesses ?? []).map(
      (harness) =>
        `    ${harness.id.padEnd(10)} ${harness.readiness.state.padEnd(8)} ${(harness.readiness.version ?? "").padEnd(10)} ` +
        `login ${harness.auth.state}${harness.enabled ? "" : " (disabled)"}`,
    ),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

function describeMigration(migration: Health["migration"]): string {
  const percent = migration.progress === undefined ? "" : ` ${Math.round(migration.progress * 100)}%`;
  return `${migration.state}${percent}: ${migration.detail ?? `to schema ${migration.targetVersion}`}`;
}

function startCommand(service: ServiceMode): string {
  if (service.kind === "systemd-user") return `systemctl --user start ${service.unit}`;
  if (service.kind === "systemd-system") return `sudo systemctl start ${service.unit}`;
  if (service.kind === "launchd") return `launchctl kickstart gui/$(id -u)/${service.label}`;
  return "atrium serve";
}

export const statusCommand = defineCommand({
  meta: { name: "status", description: "Show whether the server runs, and its health and identity" },
  args: { json: { type: "boolean", description: "Print JSON" } },
  run: ({ args }) =>
    runCli(async () => {
      const report = await readStatus();
      if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else printHuman(report);
      if (!report.running) process.exit(1);
    }),
});
