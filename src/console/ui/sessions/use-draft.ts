import { useState } from "preact/hooks";

const draftKey = (sessionId: string) => `atrium.draft.${sessionId}`;

/**
 * The prompt being written in a session, kept on this device as it is typed, so a reload, a closed tab or
 * a phone that drops the page gives it back. An empty draft is removed, so only unsent ones stay.
 */
export function useDraft(sessionId: string): [string, (text: string) => void] {
  const [text, setText] = useState(() => localStorage.getItem(draftKey(sessionId)) ?? "");
  const change = (next: string) => {
    setText(next);
    if (next) localStorage.setItem(draftKey(sessionId), next);
    else localStorage.removeItem(draftKey(sessionId));
  };
  return [text, change];
}

/** Forgets a session's draft (the session was deleted). */
export const forgetDraft = (sessionId: string) => localStorage.removeItem(draftKey(sessionId));

/** Adds `text` to the end of a session's kept draft (a file mentioned from the Files view), on a line of its own when the draft has one already. */
export function addToDraft(sessionId: string, text: string): void {
  const draft = localStorage.getItem(draftKey(sessionId)) ?? "";
  localStorage.setItem(draftKey(sessionId), draft === "" ? text : `${draft}${/\s$/.test(draft) ? "" : " "}${text}`);
}
