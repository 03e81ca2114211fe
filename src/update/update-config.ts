import type { ConfigFile } from "../config/config.ts";
import type { ReleaseChannel } from "./manifest.ts";

/**
 * Where releases are published. A placeholder until the project publishes at a fixed address (as
 * install.sh's DEFAULT_BASE_URL): `.invalid` never resolves, so a check fails at once and says so.
 * Set `updateBaseUrl` in config.json to a real release location.
 */
export const DEFAULT_UPDATE_BASE_URL = "https://releases.atrium.invalid/";
export const DEFAULT_UPDATE_CHECK_INTERVAL_HOURS = 6;
export const DEFAULT_UPDATE_RESTART_TIMEOUT_SECONDS = 60;

/** The update settings of a server or of `atrium update`. */
export interface UpdateSettings {
  baseUrl: string;
  channel: ReleaseChannel;
  /** 0: no automatic checks. */
  checkIntervalHours: number;
  /** How long a new build has to become healthy after the restart before it is rolled back. */
  restartTimeoutSeconds: number;
}

/** config.json's update keys with their defaults: what `atrium serve` runs with. */
export function updateSettingsFromConfig(config: ConfigFile): UpdateSettings {
  return {
    baseUrl: config.updateBaseUrl ?? DEFAULT_UPDATE_BASE_URL,
    channel: config.updateChannel ?? "stable",
    checkIntervalHours: config.updateCheckIntervalHours ?? DEFAULT_UPDATE_CHECK_INTERVAL_HOURS,
    restartTimeoutSeconds: config.updateRestartTimeoutSeconds ?? DEFAULT_UPDATE_RESTART_TIMEOUT_SECONDS,
  };
}
