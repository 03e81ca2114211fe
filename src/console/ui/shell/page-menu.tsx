import { useEffect, useState } from "preact/hooks";
import { PAGE_LINKS, pageHref, type Route } from "./router.ts";

/**
 * The console's pages and Sign out. Where the screen is wide they are one row in the top bar; on a phone
 * they fold behind a Menu button into a column of rows a thumb can hit, so every page is one tap away
 * and none is hidden past the screen's edge. A navigation folds the menu again.
 */
export function PageMenu({ route, signOut }: { route: Route; signOut: () => void }) {
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [route]);
  return (
    <>
      <button type="button" class="quiet-button menu-button" aria-expanded={open} aria-controls="page-menu" onClick={() => setOpen(!open)}>
        Menu
      </button>
      <div id="page-menu" class={open ? "page-menu open" : "page-menu"}>
        <ul class="page-links">
          {PAGE_LINKS.map((link) => (
            <li key={link.page}>
              <a
                href={pageHref(link.page)}
                aria-current={route.page === link.page || (route.page === "session" && link.page === "sessions") ? "page" : undefined}
              >
                {link.label}
              </a>
            </li>
          ))}
        </ul>
        <button type="button" class="quiet-button" onClick={signOut}>
          Sign out
        </button>
      </div>
    </>
  );
}
