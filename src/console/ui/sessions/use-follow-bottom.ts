import { useEffect, useLayoutEffect, useRef } from "preact/hooks";

/** Near enough to the bottom that new text should keep the page scrolled to it. */
const FOLLOW_MARGIN_PX = 80;
const atBottom = () => innerHeight + scrollY >= document.documentElement.scrollHeight - FOLLOW_MARGIN_PX;
/** Scrolls to the end, unless it is there already (a scroll costs the frame a scroll event and a repaint). */
const toBottom = () => {
  const end = document.documentElement.scrollHeight - innerHeight;
  if (scrollY < end - 1) scrollTo(0, end);
};

/**
 * Keeps a session's page at its bottom while the reader is there: after each change (`changes`), and
 * whenever the page grows on its own (a reply's markdown drawn after it mounts, tool cards read after
 * their text, code coloured). Only the reader scrolling up stops it, at once, before a card read above
 * the screen grows the page; scrolling back down to the end starts it again. The page growing, and
 * this hook's own scrolls, never stop it (a scroll handler that asked "at the bottom?" after growth
 * would stop following on the first long page).
 */
export function useFollowBottom(changes: unknown): void {
  const following = useRef(true);
  useLayoutEffect(() => {
    if (following.current) toBottom();
  }, [changes]);
  useEffect(() => {
    let lastY = scrollY;
    const grows = new ResizeObserver(() => following.current && toBottom());
    grows.observe(document.body);
    const scrolled = () => {
      // Only an upward scroll is the reader's; the bottom is measured only then, or to follow again.
      if (scrollY < lastY || !following.current) following.current = atBottom();
      lastY = scrollY;
    };
    addEventListener("scroll", scrolled, { passive: true });
    return () => {
      grows.disconnect();
      removeEventListener("scroll", scrolled);
    };
  }, []);
}
