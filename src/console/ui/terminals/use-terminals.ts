import type { PtyTerminal } from "../../../schemas/terminals.ts";
import type { StreamedEvent } from "../shared/event-stream.ts";
import { type ListSource, useLiveList } from "../shared/use-live-list.ts";
import { useState } from "preact/hooks";

/** Where terminals are opened: a project's first folder, or a session's (its worktree). */
export interface TerminalPlace {
  projectId: string;
  sessionId: string | null;
  /** The project's name or the session's title, for headings and labels. */
  name: string;
}

const inPlace = (terminal: PtyTerminal, place: TerminalPlace) =>
  terminal.projectId === place.projectId && (place.sessionId === null || terminal.sessionId === place.sessionId);

function terminalSource(place: TerminalPlace): ListSource<PtyTerminal> {
  const query = new URLSearchParams({ projectId: place.projectId, ...(place.sessionId ? { sessionId: place.sessionId } : {}) });
  return {
    // Not `terminal.*`: `terminal.output` is an install's log, not one of these.
    kinds: ["terminal.created", "terminal.updated", "terminal.exited"],
    firstPage: () => `/v1/terminals?${query}`,
    apply(event: StreamedEvent, { keep }) {
      const { terminal } = event.payload as { terminal: PtyTerminal };
      if (inPlace(terminal, place)) keep(terminal);
    },
    // Oldest first, as the server lists them.
    compare: (a, b) => a.createdAt.localeCompare(b.createdAt),
    // A closed terminal is forgotten; its late `terminal.exited` must not list it again.
    idsNeverReused: true,
  };
}

/** The terminals of a project (or of one session), running or exited and still kept, followed live. */
export function useTerminals(place: TerminalPlace) {
  const [source] = useState(() => terminalSource(place));
  return useLiveList(source);
}
