import { useEffect, useState } from "preact/hooks";
import { type FilesOpen, filesHref, parseFilesRoute } from "../files/files-route.ts";
import { owePageFocus, pageTitle } from "./page-heading.tsx";

export { type FilesOpen, filesHref };

/** The pages the top bar links to, in its order. */
export const PAGE_LINKS = [
  { page: "sessions", label: "Sessions" },
  { page: "projects", label: "Projects" },
  { page: "harnesses", label: "Harnesses" },
  { page: "skills", label: "Skills" },
  { page: "mcps", label: "MCP servers" },
  { page: "plugins", label: "Plugins" },
  { page: "machines", label: "Machines" },
  { page: "settings", label: "Settings" },
] as const;

type LinkedPage = (typeof PAGE_LINKS)[number]["page"];

/** The console's pages, addressed by the URL's fragment so a reload or a shared link opens the same one. */
export type Route =
  | { page: LinkedPage }
  | { page: "session"; sessionId: string; itemId?: string }
  | { page: "terminal"; owner: { kind: "project" | "session"; id: string } }
  | { page: "files"; owner: { kind: "project" | "session"; id: string }; open: FilesOpen }
  | { page: "agent-terminal"; sessionId: string; terminalKey: string };

export const pageHref = (page: LinkedPage) => `#/${page}`;
/** A session's page; with `itemId`, opened at that message (where a search found it). */
export const sessionHref = (sessionId: string, itemId?: string) =>
  `#/sessions/${encodeURIComponent(sessionId)}${itemId ? `/at/${encodeURIComponent(itemId)}` : ""}`;
/** The terminals of a project (in its folder) or of a session (in its worktree). */
export const terminalHref = (kind: "project" | "session", id: string) => `#/${kind}s/${encodeURIComponent(id)}/terminal`;

/** A command the session's agent runs in a terminal of its own (a background task), shown read-only. */
export const agentTerminalHref = (sessionId: string, terminalKey: string) =>
  `#/sessions/${encodeURIComponent(sessionId)}/tasks/${encodeURIComponent(terminalKey)}`;

export function parseRoute(hash: string): Route {
  const [page, id, part, itemId, rest, line] = hash.replace(/^#\/?/, "").split("/");
  const files = parseFilesRoute(page, id, part, itemId, rest, line);
  if (files) return { page: "files", ...files };
  if (part === "terminal" && id && (page === "projects" || page === "sessions")) {
    return { page: "terminal", owner: { kind: page === "projects" ? "project" : "session", id: decodeURIComponent(id) } };
  }
  if (page === "sessions" && id && part === "tasks" && itemId)
    return { page: "agent-terminal", sessionId: decodeURIComponent(id), terminalKey: decodeURIComponent(itemId) };
  if (page === "sessions" && id)
    return { page: "session", sessionId: decodeURIComponent(id), ...(part === "at" && itemId ? { itemId: decodeURIComponent(itemId) } : {}) };
  const linked = PAGE_LINKS.find((link) => link.page === page);
  return { page: linked?.page ?? "sessions" };
}

/** What the window's title calls a page until its heading names it (a session's heading is its title). */
const routeName = (route: Route) =>
  PAGE_LINKS.find((link) => link.page === route.page)?.label ??
  (route.page === "terminal" || route.page === "agent-terminal" ? "Terminal" : route.page === "files" ? "Files" : "Session");

/**
 * The page the address names, followed as it changes. A navigation names the page in the window's title
 * and owes the new page the focus (page-heading.tsx); the page first opened leaves the focus to the browser.
 */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(location.hash));
    const navigated = () => {
      owePageFocus();
      document.title = pageTitle(routeName(parseRoute(location.hash)));
      follow();
    };
    addEventListener("hashchange", navigated);
    // Effects run after the first paint: the address may have changed before the listener was there.
    follow();
    return () => removeEventListener("hashchange", navigated);
  }, []);
  return route;
}
