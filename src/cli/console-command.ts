import { defineCommand } from "citty";
import { runCli } from "./cli-context.ts";
import { serverClient } from "./server-client.ts";

/** `atrium console`: prints a link that signs a browser in to the running server's console once. */
export const consoleCommand = defineCommand({
  meta: { name: "console", description: "Print a one-time sign-in link to the web console (valid 5 minutes)" },
  run: () =>
    runCli(async () => {
      const client = serverClient();
      const { code, expiresAt } = await client.json<{ code: string; expiresAt: string }>("POST", "/v1/console/links");
      // The code rides in the fragment: browsers never send it, so it stays out of logs and proxies.
      process.stdout.write(`${client.url}/#code=${code}\n`);
      process.stderr.write(`Open it in a browser before ${expiresAt}; it signs in once.\n`);
    }),
});
