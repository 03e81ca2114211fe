import { useLayoutEffect } from "preact/hooks";

/**
 * Keeps a CSS custom property on the document's root at the element's height as it changes: what sticks
 * below a sticky element of varying height (the top bar with the offline notice) knows where to stick.
 */
export function useHeightProperty(element: { current: HTMLElement | null }, property: string): void {
  useLayoutEffect(() => {
    const target = element.current;
    if (!target) return;
    const measure = () => document.documentElement.style.setProperty(property, `${target.getBoundingClientRect().height}px`);
    measure();
    const resizes = new ResizeObserver(measure);
    resizes.observe(target);
    return () => resizes.disconnect();
  });
}
