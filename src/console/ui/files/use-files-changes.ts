import { useEffect, useState } from "preact/hooks";
import type { Static } from "@sinclair/typebox";
import type { ProjectFileEvents } from "../../../schemas/project-files.ts";
import type { SessionDetail } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { followThenRead } from "../shared/event-stream.ts";

type FilesChanged = Static<(typeof ProjectFileEvents)["files.changed"]>;

/**
 * The newest change to the project's files: one made through the Files routes (its path), or a tool call of
 * the session whose folder is shown (`path` null: anything may have changed). `seq` tells two alike apart.
 */
export interface FilesChange {
  seq: number;
  path: string | null;
  fromPath: string | null;
}

/** A session's tool calls come in bursts while it works: they are checked once the burst has paused this long. */
const SESSION_PAUSE_MS = 400;

/**
 * Whether a session's tool calls can change the folder shown: for a session's view, its own; for a
 * project's view, those of the sessions that work in that folder (each session's folder read once).
 */
function sessionsInFolder(sessionId: string | null, folder: () => string | null): (subjectId: string) => Promise<boolean> {
  if (sessionId) return async (subjectId) => subjectId === sessionId;
  const folders = new Map<string, Promise<string | null>>();
  return async (subjectId) => {
    if (!folders.has(subjectId)) {
      const read = api<SessionDetail>("GET", `/v1/sessions/${encodeURIComponent(subjectId)}`).then(
        ({ session }) => session.cwd,
        // Not remembered: the next tool call of that session asks again.
        () => {
          folders.delete(subjectId);
          return null;
        },
      );
      folders.set(subjectId, read);
    }
    const shown = folder();
    return shown !== null && (await folders.get(subjectId)) === shown;
  };
}

/**
 * Reads the place (`read`) after following `files.changed` from the event cursor, so a change made while
 * the view reads is not missed; hands on each change to the project's files. A change by an agent or an
 * editor on disk makes no event (docs/api.md); each tool call (`session.transcript`: a call added or changed,
 * an edit or a command ending) of a session working in the folder shown hands on a change of no path, so
 * what is shown is checked.
 */
export function useFilesChanges(
  projectId: () => string | null,
  sessionId: string | null,
  folder: () => string | null,
  read: () => Promise<unknown>,
  onFailure: (sentence: string) => void,
): FilesChange | null {
  const [change, setChange] = useState<FilesChange | null>(null);
  useEffect(() => {
    let seq = 0;
    let sessionTimer: ReturnType<typeof setTimeout> | undefined;
    const watched = sessionsInFolder(sessionId, folder);
    const toolCallsCame = () => {
      clearTimeout(sessionTimer);
      sessionTimer = setTimeout(() => setChange({ seq: ++seq, path: null, fromPath: null }), SESSION_PAUSE_MS);
    };
    const stop = followThenRead(
      {
        // On the stream of every session (not one opened on this session: that would tell the server someone watches it).
        kinds: ["files.changed", "session.transcript"],
        onEvents(events) {
          for (const event of events) {
            if (event.kind === "session.transcript") {
              void watched(event.subjectId).then((inFolder) => inFolder && toolCallsCame());
              continue;
            }
            const payload = event.payload as FilesChanged;
            if (payload.projectId === projectId()) setChange({ seq: ++seq, path: payload.path, fromPath: payload.fromPath });
          }
        },
        onProblem: onFailure,
      },
      read,
      onFailure,
    );
    return () => {
      clearTimeout(sessionTimer);
      stop();
    };
  }, []);
  return change;
}
