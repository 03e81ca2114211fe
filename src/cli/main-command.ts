import { defineCommand } from "citty";
import { buildInfo } from "../system/build-info.ts";
import { serveCommand } from "./serve-command.ts";
import { tokenCommand } from "./token-command.ts";
import { statusCommand } from "./status-command.ts";
import { logsCommand } from "./logs-command.ts";
import { acpEchoCommand } from "./acp-echo-command.ts";
import { updateCommand } from "./update-command.ts";

export const mainCommand = defineCommand({
  meta: {
    name: "atrium",
    version: buildInfo.version,
    description: "Runs and coordinates the coding-agent CLIs on this machine",
  },
  subCommands: { serve: serveCommand, token: tokenCommand, status: statusCommand, logs: logsCommand, update: updateCommand, "acp-echo": acpEchoCommand },
});
