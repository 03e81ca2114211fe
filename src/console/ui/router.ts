import { useEffect, useState } from "preact/hooks";

/** The console's pages, addressed by the URL's fragment so a reload or a shared link opens the same one. */
export type Route = { page: "sessions" } | { page: "session"; sessionId: string } | { page: "projects" } | { page: "harnesses" } | { page: "settings" };

export const PAGE_LINKS = [
  { page: "sessions", label: "Sessions", href: "#/sessions" },
  { page: "projects", label: "Projects", href: "#/projects" },
  { page: "harnesses", label: "Harnesses", href: "#/harnesses" },
  { page: "settings", label: "Settings", href: "#/settings" },
] as const;

export const sessionHref = (sessionId: string) => `#/sessions/${encodeURIComponent(sessionId)}`;

export function parseRoute(hash: string): Route {
  const [page, id] = hash.replace(/^#\/?/, "").split("/");
  if (page === "sessions" && id) return { page: "session", sessionId: decodeURIComponent(id) };
  if (page === "projects" || page === "harnesses" || page === "settings") return { page };
  return { page: "sessions" };
}

/** The page the address names, followed as it changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", follow);
    return () => removeEventListener("hashchange", follow);
  }, []);
  return route;
}
