import packageJson from "../../package.json" with { type: "json" };

// Replaced by `bun build --define` in release builds; absent when running from source.
declare const BUILD_VERSION: string | undefined;
declare const BUILD_NUMBER: string | undefined;
declare const BUILD_CHANNEL: string | undefined;
declare const BUILD_COMMIT: string | undefined;

export interface BuildInfo {
  version: string;
  buildNumber: number;
  channel: string;
  commit: string;
  compiled: boolean;
}

export const buildInfo: BuildInfo = {
  version: typeof BUILD_VERSION === "string" ? BUILD_VERSION : packageJson.version,
  buildNumber: typeof BUILD_NUMBER === "string" ? Number(BUILD_NUMBER) : 0,
  channel: typeof BUILD_CHANNEL === "string" ? BUILD_CHANNEL : "dev",
  commit: typeof BUILD_COMMIT === "string" ? BUILD_COMMIT : "",
  compiled: typeof BUILD_VERSION === "string",
};
