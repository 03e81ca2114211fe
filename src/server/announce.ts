import type { DataPaths } from "../config/paths.ts";
import { writeRuntimeFile } from "../config/runtime-file.ts";
import type { Logger } from "../logging/logger.ts";
import { buildInfo } from "../system/build-info.ts";
import { isLoopbackHost } from "../system/loopback.ts";
import type { ServerAddress } from "../system/server-address.ts";

/** What serving plain http beyond loopback means, and the ways out (docs/remote-access.md). */
export const CLEAR_TEXT_WARNING =
  "listening beyond this machine over plain http: the bearer token, prompts, replies and files cross the network in clear text. " +
  "Serve https (--tls-cert and --tls-key, or tls in config.json, with a certificate from tailscale cert or mkcert), " +
  "or listen on 127.0.0.1 behind tailscale serve or a reverse proxy (docs/remote-access.md)";

/** Tells `atrium status` (server.json) and the log where the server listens. */
export function announce(
  host: string,
  address: ServerAddress,
  at: { paths: DataPaths; logger: Logger; startedAt: Date; port: number; pending: boolean },
): void {
  const { paths, logger, port } = at;
  const url = address.localUrl;
  try {
    writeRuntimeFile(paths.runtime, {
      pid: process.pid,
      url,
      reachableUrls: address.reachableUrls,
      host,
      port,
      startedAt: at.startedAt.toISOString(),
      version: buildInfo.version,
    });
  } catch (error) {
    // A full disk must not keep the server from serving reads; only `atrium status` loses its pointer.
    logger.error("server.json could not be written; atrium status will not find this server", { error });
  }
  const listening = { url, reachableUrls: address.reachableUrls, pid: process.pid, version: buildInfo.version, dataDir: paths.root };
  logger.info(at.pending ? "listening while the database migrates" : "listening", listening);
  if (!isLoopbackHost(host)) {
    if (address.secure) logger.warn("listening beyond this machine over https; every request needs a bearer token", { host });
    else logger.warn(CLEAR_TEXT_WARNING, { host });
  }
}
