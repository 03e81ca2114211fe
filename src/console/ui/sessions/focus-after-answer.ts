import { useLayoutEffect } from "preact/hooks";

/**
 * Where the focus goes when an answered question leaves with it: to the card of the call it asked about
 * (which now says the answer), else to the conversation's newest message, so a keyboard or a screen reader
 * goes on where the turn does instead of from the top of the page.
 */
export function useFocusAfterAnswer(form: { current: HTMLElement | null }, toolCallId: string | null): void {
  useLayoutEffect(() => {
    const element = form.current;
    return () => {
      if (!element?.contains(document.activeElement)) return;
      // After the question's removal has been drawn: a card may have come in its place.
      setTimeout(() => {
        if (document.activeElement !== document.body) return;
        const card = toolCallId === null ? null : document.querySelector<HTMLElement>(`[data-tool-call="${CSS.escape(toolCallId)}"] > summary`);
        const newest = document.querySelector<HTMLElement>(".messages > li:last-child");
        const target = card ?? newest;
        if (target === newest && newest) newest.tabIndex = -1;
        target?.focus();
      });
    };
  }, []);
}
