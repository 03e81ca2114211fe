import { useEffect, useState } from "preact/hooks";
import type { Static } from "@sinclair/typebox";
import type { ProjectFileEvents } from "../../../schemas/project-files.ts";
import { followThenRead } from "../shared/event-stream.ts";

type FilesChanged = Static<(typeof ProjectFileEvents)["files.changed"]>;

/** The newest change made to the project's files through the Files routes; `seq` tells two alike apart. */
export interface FilesChange {
  seq: number;
  path: string;
  fromPath: string | null;
}

/**
 * Reads the place (`read`) after following `files.changed` from the event cursor, so a change made while
 * the view reads is not missed; hands on each change to the project's files. A change by an agent or an
 * editor on disk makes no event (docs/api.md): those show on the next read.
 */
export function useFilesChanges(projectId: () => string | null, read: () => Promise<unknown>, onFailure: (sentence: string) => void): FilesChange | null {
  const [change, setChange] = useState<FilesChange | null>(null);
  useEffect(() => {
    let seq = 0;
    return followThenRead(
      {
        kinds: ["files.changed"],
        onEvents(events) {
          for (const event of events) {
            const payload = event.payload as FilesChanged;
            if (payload.projectId === projectId()) setChange({ seq: ++seq, path: payload.path, fromPath: payload.fromPath });
          }
        },
        onProblem: onFailure,
      },
      read,
      onFailure,
    );
  }, []);
  return change;
}
