import { useEffect, useState } from "preact/hooks";

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
export type Route = { page: LinkedPage } | { page: "session"; sessionId: string };

export const pageHref = (page: LinkedPage) => `#/${page}`;
export const sessionHref = (sessionId: string) => `#/sessions/${encodeURIComponent(sessionId)}`;

export function parseRoute(hash: string): Route {
  const [page, id] = hash.replace(/^#\/?/, "").split("/");
  if (page === "sessions" && id) return { page: "session", sessionId: decodeURIComponent(id) };
  const linked = PAGE_LINKS.find((link) => link.page === page);
  return { page: linked?.page ?? "sessions" };
}

/** The page the address names, followed as it changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", follow);
    // Effects run after the first paint: the address may have changed before the listener was there.
    follow();
    return () => removeEventListener("hashchange", follow);
  }, []);
  return route;
}
