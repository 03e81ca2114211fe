import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";

/** What a running server tells the CLI about itself, in `server.json` in the data dir. */
export interface RuntimeInfo {
  pid: number;
  /** Where this machine's CLI reaches it. */
  url: string;
  /** Where other devices reach it, best first (src/system/server-address.ts); absent in files older servers wrote. */
  reachableUrls?: string[];
  host: string;
  port: number;
  startedAt: string;
  version: string;
}

export function writeRuntimeFile(path: string, info: RuntimeInfo): void {
  writeFileSync(path, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

export function readRuntimeFile(path: string): RuntimeInfo | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as RuntimeInfo;
  } catch {
    return undefined;
  }
}

/** Removes the file only if it still describes this process (a newer server may have replaced it). */
export function removeRuntimeFile(path: string, pid: number): void {
  if (readRuntimeFile(path)?.pid === pid) rmSync(path, { force: true });
}
