import { useEffect, useRef, useState } from "preact/hooks";
import type { SessionDetail } from "../../../schemas/sessions.ts";

/** How many earlier pages are read looking for the message to open at, before giving up and opening at the end. */
const EARLIER_PAGES_SOUGHT = 20;

/**
 * Opens the session at one message (`itemId`, where a search found it): earlier pages are read until it
 * is there, then it is shown from its start and the page stops following the end. Returns the message
 * found, for the conversation to mark.
 */
export function useOpenAt(
  itemId: string | undefined,
  detail: SessionDetail | null,
  loadEarlier: () => Promise<void>,
  holdAt: (element: Element) => void,
): string | null {
  const sought = useRef({ done: itemId === undefined, pages: 0 });
  const [found, setFound] = useState<string | null>(null);
  useEffect(() => {
    const state = sought.current;
    if (state.done || !detail || !itemId) return;
    const element = document.querySelector(`[data-item="${CSS.escape(itemId)}"]`);
    if (element) {
      state.done = true;
      setFound(itemId);
      holdAt(element);
    } else if (detail.hasMore && state.pages < EARLIER_PAGES_SOUGHT) {
      state.pages++;
      loadEarlier().catch(() => {
        state.done = true;
      });
    } else state.done = true;
  }, [detail]);
  return found;
}
