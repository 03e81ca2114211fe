import { defineCommand } from "citty";
import { DEFAULT_HOST, DEFAULT_PORT } from "../config/config.ts";
import { parseLogLevel } from "../logging/logger.ts";
import { AtriumServer, CLEAR_TEXT_WARNING } from "../server/atrium-server.ts";
import { isLoopbackHost } from "../system/loopback.ts";
import { CliError, cliConfig, cliPaths, runCli } from "./cli-context.ts";
import { DataDirBusyError } from "../server/data-dir-lock.ts";

export const serveCommand = defineCommand({
  meta: { name: "serve", description: "Run the Atrium server in the foreground" },
  args: {
    host: { type: "string", description: `Address to bind (default ${DEFAULT_HOST})` },
    port: { type: "string", description: `Port to bind (default ${DEFAULT_PORT}; 0 picks a free one)` },
    "log-level": { type: "string", description: "debug, info, warn or error (default info)" },
    "tls-cert": { type: "string", description: "Serve https with this certificate (PEM); with --tls-key" },
    "tls-key": { type: "string", description: "The certificate's private key (PEM)" },
  },
  run: ({ args }) =>
    runCli(async () => {
      const paths = cliPaths();
      const config = cliConfig(paths);
      const host = args.host ?? config.host ?? DEFAULT_HOST;
      const port = args.port !== undefined ? Number(args.port) : (config.port ?? DEFAULT_PORT);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be 0 to 65535, not ${args.port}`);
      if ((args["tls-cert"] === undefined) !== (args["tls-key"] === undefined)) throw new CliError("--tls-cert and --tls-key go together");
      const tls = args["tls-cert"] && args["tls-key"] ? { certFile: args["tls-cert"], keyFile: args["tls-key"] } : config.tls;
      let server: AtriumServer;
      try {
        server = await AtriumServer.start({
          dataDir: paths.root,
          host,
          port,
          logLevel: parseLogLevel(args["log-level"] ?? config.logLevel ?? process.env.ATRIUM_LOG_LEVEL),
          echoLogs: process.stderr.isTTY === true,
          tls,
          config,
        });
      } catch (error) {
        if (error instanceof DataDirBusyError) throw new CliError(`${error.message} (${paths.root})`);
        const code = (error as { code?: string }).code;
        if (code === "EADDRINUSE") throw new CliError(`${host}:${port} is already in use (is another atrium running?)`);
        throw new CliError(`could not start: ${(error as Error).message}`);
      }
      // The last line of defence for a long-running server: an error no caller caught is logged, and
      // the server goes on serving (each write path handles its own failures; this catches a miss).
      process.on("unhandledRejection", (reason) => server.logger.error("an unexpected error escaped; the server goes on", { error: reason }));
      process.on("uncaughtException", (error) => server.logger.error("an unexpected error escaped; the server goes on", { error }));
      // Handlers first: whoever reads the line may signal at once.
      const shutdown = () => void server.stop().then(() => process.exit(0));
      process.once("SIGTERM", shutdown);
      process.once("SIGINT", shutdown);
      process.stdout.write(`listening on ${server.url}\n`);
      await printWhereToReachIt(server, host);
    }),
});

/**
 * What a person starting the server needs to read: the addresses other devices use, a warning when
 * plain http leaves this machine, and on a first start at a terminal the console's sign-in link with
 * its QR code, so a new user never needs the token file or curl.
 */
async function printWhereToReachIt(server: AtriumServer, host: string): Promise<void> {
  const { address } = server;
  const elsewhere = address.reachableUrls.filter((url) => url !== server.url);
  for (const url of elsewhere) process.stdout.write(`reachable at ${url}\n`);
  // At a terminal the log's own warning is echoed there already; else it is said once here too.
  if (!address.secure && !isLoopbackHost(host) && !process.stderr.isTTY) process.stderr.write(`atrium: warning: ${CLEAR_TEXT_WARNING}\n`);
  if (!process.stdout.isTTY) return;
  const link = server.firstSignInLink();
  if (!link) return;
  const best = link.urls[0]!;
  // Loaded only here: the QR encoder is no part of a start that serves no terminal.
  const { terminalQr } = await import("./terminal-qr.ts");
  process.stdout.write(`\nSign in to the console (once, before ${link.expiresAt}; \`atrium console\` prints another):\n${best}\n${terminalQr(best)}`);
}
