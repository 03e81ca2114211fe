import type { Clock } from "../clock.ts";
import type { ConfigFile } from "../config/config.ts";
import type { LogLevel } from "../logging/logger.ts";
import type { CoreTuning } from "../modules/core-module.ts";
import type { ModuleTuning } from "../modules/modules.ts";
import type { Migration } from "../store/migrations.ts";

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** How `atrium serve` starts a server: where, and with the user's config.json. */
export interface ServerOptions {
  dataDir: string;
  host: string;
  port: number;
  logLevel: LogLevel;
  echoLogs: boolean;
  /** Serve https with this certificate and key (PEM files); `--tls-cert`/`--tls-key` or config.json's `tls`. */
  tls?: TlsFiles;
  /** config.json (each module reads its own keys); `host`, `port` and `logLevel` above win over it. */
  config: ConfigFile;
  /** What tests replace; a real server runs without. */
  tuning?: ServerTuning;
}

/** The seams tests use: shorter timeouts, another environment, a clock they move on; the core module's own at the top. */
export interface ServerTuning extends CoreTuning {
  clock?: Clock;
  /** How long a graceful stop waits for in-flight requests before closing their connections. */
  shutdownGraceMs?: number;
  /** How long a write waits for another process's lock on the database before it fails (500 ms). */
  busyTimeoutMs?: number;
  /** The schema changes this server applies; every released one by default. */
  migrations?: Migration[];
  /** Per module, by its name (src/modules/modules.ts). */
  modules?: ModuleTuning;
}
