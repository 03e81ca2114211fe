import { useEffect, useState } from "preact/hooks";

/** Whether any of the element is on the screen between the sticky bars at the top and the composer at the bottom. */
function shownBetweenBars(element: Element): boolean {
  const box = element.getBoundingClientRect();
  if (box.height === 0) return false;
  const top = Math.max(0, ...[...document.querySelectorAll(".page-top, .session-sticky")].map((bar) => bar.getBoundingClientRect().bottom));
  const bottom = document.querySelector(".composer")?.getBoundingClientRect().top ?? innerHeight;
  return box.bottom > top && box.top < Math.min(bottom, innerHeight);
}

/**
 * Whether the element (`key` names which: it is measured again when that changes) can be seen: the page
 * pins a bar to what the reader cannot see. Measured on scroll and resize, once a frame at most.
 */
export function useShownBetweenBars(element: { current: Element | null }, key: unknown): boolean {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    let frame = 0;
    const measure = () => {
      frame = 0;
      setShown(element.current !== null && shownBetweenBars(element.current));
    };
    const later = () => {
      frame ||= requestAnimationFrame(measure);
    };
    measure();
    addEventListener("scroll", later, { passive: true });
    addEventListener("resize", later);
    const grows = new ResizeObserver(later);
    grows.observe(document.body);
    return () => {
      cancelAnimationFrame(frame);
      removeEventListener("scroll", later);
      removeEventListener("resize", later);
      grows.disconnect();
    };
  }, [key]);
  return shown;
}
