import type { RefObject } from "preact";
import { useEffect } from "preact/hooks";

/** Below this the screen would show too few lines to use; the page scrolls instead. */
const MIN_HEIGHT_PX = 160;

/**
 * Sets `--visible-height` on the element: from its top to the bottom of what the screen shows. The
 * visual viewport is what is left above a phone's keyboard, so what sits at the element's bottom (the
 * key bar) stays just above the keyboard, and follows a rotation.
 */
export function useVisibleHeight(element: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const viewport = window.visualViewport;
    const measure = () => {
      const target = element.current;
      if (!target) return;
      const bottom = viewport ? viewport.offsetTop + viewport.height : window.innerHeight;
      const height = Math.max(MIN_HEIGHT_PX, bottom - target.getBoundingClientRect().top);
      target.style.setProperty("--visible-height", `${Math.floor(height)}px`);
    };
    measure();
    const sources: EventTarget[] = [window, ...(viewport ? [viewport] : [])];
    for (const source of sources) source.addEventListener("resize", measure);
    viewport?.addEventListener("scroll", measure);
    return () => {
      for (const source of sources) source.removeEventListener("resize", measure);
      viewport?.removeEventListener("scroll", measure);
    };
  }, []);
}
