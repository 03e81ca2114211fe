import { useEffect, useState } from "preact/hooks";
import { onReachable } from "./connection.ts";

/**
 * What the console keeps on this device to show while the server cannot be reached: the sessions list's
 * first page and the names its rows need (agents, the first projects), and the first page of the last
 * `KEPT_SESSIONS` sessions opened, with the details of their replies that were read. Kept in the page's
 * Cache Storage, which browsers give only to secure contexts (https, or this machine); elsewhere nothing
 * is kept. Signing out forgets it all.
 */
const CACHE_NAME = "atrium-reads-v1";
const INDEX_KEY = "atrium.kept-sessions";
export const KEPT_SESSIONS = 20;

/** The paths kept whole; a session's own paths are kept with the session. */
const LIST_PATHS = [/^\/v1\/sessions\?limit=\d+$/, /^\/v1\/projects\?limit=\d+$/, /^\/v1\/harnesses$/];
const SESSION_DETAIL = /^\/v1\/sessions\/([^/?]+)$/;
const REPLY_DETAILS = /^\/v1\/sessions\/([^/?]+)\/transcript\/[^/?]+\/details(\?|$)/;

const cacheOf = () => (typeof caches === "undefined" ? null : caches.open(CACHE_NAME));
const keyOf = (path: string) => new URL(path, location.origin).href;
const ofSession = (path: string, sessionId: string) => {
  const { pathname } = new URL(path, location.origin);
  const own = `/v1/sessions/${encodeURIComponent(sessionId)}`;
  return pathname === own || pathname.startsWith(`${own}/`);
};

/** The sessions kept, the last opened first. */
const keptSessions = (): string[] => {
  try {
    return JSON.parse(localStorage.getItem(INDEX_KEY) ?? "[]") as string[];
  } catch {
    return [];
  }
};

/** Whether a read of this path is one the console keeps. */
export const keepable = (path: string) => LIST_PATHS.some((kept) => kept.test(path)) || SESSION_DETAIL.test(path) || REPLY_DETAILS.test(path);

/** Keeps a read the server answered; a session opened goes first among those kept, and the oldest past the bound are forgotten. */
export async function keepRead(path: string, response: Response): Promise<void> {
  const cache = await cacheOf();
  if (!cache) return;
  const opened = SESSION_DETAIL.exec(path)?.[1];
  if (opened) {
    const sessionId = decodeURIComponent(opened);
    const sessions = [sessionId, ...keptSessions().filter((kept) => kept !== sessionId)];
    localStorage.setItem(INDEX_KEY, JSON.stringify(sessions.slice(0, KEPT_SESSIONS)));
    const dropped = sessions.slice(KEPT_SESSIONS);
    if (dropped.length > 0) {
      for (const request of await cache.keys()) {
        if (dropped.some((sessionId) => ofSession(request.url, sessionId))) await cache.delete(request);
      }
    }
  }
  const detailsOf = REPLY_DETAILS.exec(path)?.[1];
  if (detailsOf && !keptSessions().includes(decodeURIComponent(detailsOf))) return;
  await cache.put(keyOf(path), response);
}

/** The read kept for this path, if any; the page then says it shows what was kept. */
export async function keptRead(path: string): Promise<Response | undefined> {
  const kept = await (await cacheOf())?.match(keyOf(path));
  if (kept) tellKeptShown(true);
  return kept;
}

/** Forgets everything kept (at sign-out: the data was the token's). */
export async function forgetKeptReads(): Promise<void> {
  localStorage.removeItem(INDEX_KEY);
  if (typeof caches !== "undefined") await caches.delete(CACHE_NAME);
}

let keptShown = false;
const listeners = new Set<(shown: boolean) => void>();
function tellKeptShown(shown: boolean): void {
  if (keptShown === shown) return;
  keptShown = shown;
  for (const listener of listeners) listener(shown);
}
onReachable(() => tellKeptShown(false));

/** Whether what the page shows came from what the device kept (since the server was last reached). */
export function useKeptShown(): boolean {
  const [shown, setShown] = useState(keptShown);
  useEffect(() => {
    listeners.add(setShown);
    setShown(keptShown);
    return () => {
      listeners.delete(setShown);
    };
  }, []);
  return shown;
}
