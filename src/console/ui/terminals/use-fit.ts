import type { RefObject } from "preact";
import { useEffect, useRef } from "preact/hooks";
import type { CellSize, TerminalEmulator } from "./emulator-api.ts";

/**
 * Fits the emulator's cells to its element whenever the element's size changes (the window, a rotation,
 * a phone's keyboard opening), and tells `resized` each new size.
 */
export function useFit(emulator: TerminalEmulator | null, element: RefObject<HTMLElement | null>, resized: (size: CellSize) => void): void {
  const latest = useRef(resized);
  latest.current = resized;
  useEffect(() => {
    const target = element.current;
    if (!emulator || !target) return;
    let last = emulator.size();
    let frame = 0;
    // On the next frame: fitting inside the observer's callback changes what it observes.
    const fit = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        const size = emulator.fit();
        if (size.cols === last.cols && size.rows === last.rows) return;
        last = size;
        latest.current(size);
      });
    };
    const observer = new ResizeObserver(fit);
    observer.observe(target);
    addEventListener("orientationchange", fit);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      removeEventListener("orientationchange", fit);
    };
  }, [emulator]);
}
