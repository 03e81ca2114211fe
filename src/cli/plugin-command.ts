import { defineCommand } from "citty";
import type { Plugin } from "../schemas/plugins.ts";
import { runCli } from "./cli-context.ts";
import { serverClient } from "./server-client.ts";

function printTable(plugins: Plugin[]): void {
  if (plugins.length === 0) {
    process.stdout.write("no plugins installed\n");
    return;
  }
  const rows = [
    ["ID", "VERSION", "STATE", "ENABLED", "PANES", "LAST ERROR"],
    ...plugins.map((plugin) => [plugin.id, plugin.version, plugin.state, plugin.enabled ? "yes" : "no", String(plugin.openPaneCount), plugin.lastError ?? ""]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) process.stdout.write(`${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")}\n`);
}

const listCommand = defineCommand({
  meta: { name: "list", description: "List the installed plugins: version, state, enabled, open panes, last error" },
  args: { json: { type: "boolean", description: "Print JSON" } },
  run: ({ args }) =>
    runCli(async () => {
      const { plugins } = await serverClient().json<{ plugins: Plugin[] }>("GET", "/v1/plugins");
      if (args.json) process.stdout.write(`${JSON.stringify(plugins, null, 2)}\n`);
      else printTable(plugins);
    }),
});

const restartCommand = defineCommand({
  meta: { name: "restart", description: "Start a plugin's process again (the way out of `failed`)" },
  args: { id: { type: "positional", required: true, description: "The plugin's id" } },
  run: ({ args }) =>
    runCli(async () => {
      const plugin = await serverClient().json<Plugin>("POST", `/v1/plugins/${encodeURIComponent(args.id)}/restart`);
      process.stdout.write(`${plugin.id} ${plugin.version}: ${plugin.state}\n`);
    }),
});

/** `atrium plugin list|restart`, talking to the running server. */
export const pluginCommand = defineCommand({
  meta: { name: "plugin", description: "The running server's plugins" },
  subCommands: { list: listCommand, restart: restartCommand },
});
