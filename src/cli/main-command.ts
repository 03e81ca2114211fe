import { defineCommand } from "citty";
import { buildInfo } from "../system/build-info.ts";

/**
 * Each command's module is loaded only when that command runs: `serve` then evaluates neither the
 * echo agent nor the update client, and a short command does not evaluate the server.
 */
export const mainCommand = defineCommand({
  meta: {
    name: "atrium",
    version: buildInfo.version,
    description: "Runs and coordinates the coding-agent CLIs on this machine",
  },
  subCommands: {
    serve: () => import("./serve-command.ts").then((module) => module.serveCommand),
    token: () => import("./token-command.ts").then((module) => module.tokenCommand),
    status: () => import("./status-command.ts").then((module) => module.statusCommand),
    logs: () => import("./logs-command.ts").then((module) => module.logsCommand),
    update: () => import("./update-command.ts").then((module) => module.updateCommand),
    plugin: () => import("./plugin-command.ts").then((module) => module.pluginCommand),
    console: () => import("./console-command.ts").then((module) => module.consoleCommand),
    backup: () => import("./backup-command.ts").then((module) => module.backupCommand),
    restore: () => import("./backup-command.ts").then((module) => module.restoreCommand),
    "acp-echo": () => import("./acp-echo-command.ts").then((module) => module.acpEchoCommand),
  },
});
