import { useEffect, useState } from "preact/hooks";
import type { BackgroundTaskOutput } from "../../../schemas/sessions.ts";
import { api, ApiError } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import { followThenRead } from "../shared/event-stream.ts";

export interface AgentTerminal {
  /** The last read: the command, its output so far, how it ended. */
  read: BackgroundTaskOutput | null;
  /** The agent released the terminal (or stopped): the server no longer keeps its output. */
  released: boolean;
  error: string | null;
}

/**
 * A command the session's agent runs, read again on each `session.tasks` event of the session. No event
 * carries a command's output, but that one comes when it starts, ends, or is released: the output is
 * then whole.
 */
export function useAgentTerminal(sessionId: string, terminalKey: string): AgentTerminal {
  const [state, setState] = useState<AgentTerminal>({ read: null, released: false, error: null });
  useEffect(() => {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/tasks/${encodeURIComponent(terminalKey)}`;
    let released = false;
    const read = async () => {
      if (released) return;
      try {
        const answer = await api<BackgroundTaskOutput>("GET", path);
        setState({ read: answer, released: false, error: null });
      } catch (failure) {
        if (!(failure instanceof ApiError && failure.status === 404)) throw failure;
        // What was shown stays on the screen.
        released = true;
        setState((last) => ({ ...last, released: true }));
      }
    };
    const report = (error: string) => setState((last) => ({ ...last, error }));
    return followThenRead(
      { kinds: ["session.tasks"], sessionId, onEvents: () => void read().catch((failure: unknown) => report(failureText(failure))), onProblem: report },
      read,
      report,
    );
  }, []);
  return state;
}
