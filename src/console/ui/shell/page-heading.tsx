import { useLayoutEffect, useRef } from "preact/hooks";

/** The window's title for a page: the page's name, then the console's. */
export const pageTitle = (name: string) => `${name} — Atrium`;

/** Owed from a navigation until the new page's heading (or, while it loads, its main region) has the focus. */
let focusOwed = false;

/**
 * Whether the focus is free to move to the new page: anywhere but inside the page itself (the link that
 * navigated, or nowhere since the old page took it away), or on the main region, where the shell put it
 * while the page loads. Something the user focused in the new page keeps it.
 */
const focusFree = () => {
  const active = document.activeElement;
  return active === null || active.tagName === "MAIN" || active.closest("main") === null;
};

/** A navigation happened: the new page's heading takes the focus once it is drawn. */
export function owePageFocus(): void {
  focusOwed = true;
}

/**
 * After a navigation's first drawing: a page that has no heading yet (it is loading) gets the focus on its
 * main region, so it is never left on the page that went away; the heading takes it over when it comes.
 */
export function holdPageFocus(main: HTMLElement | null): void {
  if (focusOwed && main && focusFree()) main.focus();
}

/** Gives the focus to the page's heading after its confirm step or card went away with the focus in it. */
export function focusPageHeading(): void {
  document.querySelector<HTMLElement>("main h2")?.focus();
}

/**
 * The page's main heading. It names the page in the window's title, and after a navigation it takes the
 * focus, so a keyboard goes on from there and a screen reader says where it landed.
 */
export function PageHeading({ text }: { text: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Before paint, with the focus below: the title a screen reader announces is already the page's.
  useLayoutEffect(() => {
    document.title = pageTitle(text);
  }, [text]);
  useLayoutEffect(() => {
    if (!focusOwed) return;
    focusOwed = false;
    if (focusFree()) heading.current?.focus();
  }, []);
  return (
    <h2 tabIndex={-1} ref={heading}>
      {text}
    </h2>
  );
}
