import { useEffect, useState } from "preact/hooks";

/**
 * What the user answered to permission questions, by session and tool call, said beside the call's card
 * ("Allowed once", "Rejected"). The server keeps no answer in the transcript (its question event only
 * ends), so the console remembers the answers it gave itself, on this device; the newest few hundred.
 */
const STORAGE_KEY = "atrium.decisions";
const KEPT_DECISIONS = 300;

type Decisions = Record<string, string>;

const keyOf = (sessionId: string, toolCallId: string) => `${sessionId} ${toolCallId}`;
const listeners = new Set<() => void>();

function readDecisions(): Decisions {
  try {
    return JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}") as Decisions;
  } catch {
    return {};
  }
}

/** Records an answer given here; the oldest are dropped past the bound (an object keeps insertion order). */
export function recordDecision(sessionId: string, toolCallId: string, words: string): void {
  const decisions = readDecisions();
  const key = keyOf(sessionId, toolCallId);
  delete decisions[key];
  decisions[key] = words;
  const kept = Object.entries(decisions).slice(-KEPT_DECISIONS);
  localStorage.setItem(STORAGE_KEY, JSON.stringify(Object.fromEntries(kept)));
  for (const listener of listeners) listener();
}

/** The answer given to the question about this call, if this device gave one; follows new answers. */
export function useDecision(sessionId: string, toolCallId: string): string | null {
  const read = () => readDecisions()[keyOf(sessionId, toolCallId)] ?? null;
  const [decision, setDecision] = useState(read);
  useEffect(() => {
    const listener = () => setDecision(read());
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, [sessionId, toolCallId]);
  return decision;
}
