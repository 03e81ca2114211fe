import { defineCommand } from "citty";
import { runCli } from "./cli-context.ts";
import { serverClient } from "./server-client.ts";
import { terminalQr } from "./terminal-qr.ts";
import type { ConsoleLink } from "../console/console-links.ts";

/**
 * `atrium console`: prints a link that signs a browser in to the running server's console once, on
 * the best address another device reaches it at (the others after it), and as a QR code for a phone.
 */
export const consoleCommand = defineCommand({
  meta: { name: "console", description: "Print a one-time sign-in link to the web console, and its QR code (valid 5 minutes)" },
  args: {
    qr: { type: "boolean", description: "Print the QR code (default: when the output is a terminal)" },
    device: { type: "string", description: "The device it is for (its token is named after it)" },
  },
  run: ({ args }) =>
    runCli(async () => {
      const client = serverClient();
      const link = await client.json<ConsoleLink>("POST", "/v1/console/links", args.device ? { deviceName: args.device } : {});
      process.stdout.write(`${link.urls.join("\n")}\n`);
      if (args.qr ?? process.stdout.isTTY) process.stdout.write(terminalQr(link.urls[0]!));
      process.stderr.write(`Open it in a browser before ${link.expiresAt}; it signs in once.\n`);
    }),
});
