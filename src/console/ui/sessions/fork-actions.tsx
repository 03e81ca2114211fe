import { useEffect, useState } from "preact/hooks";
import type { Harness } from "../../../schemas/harnesses.ts";
import type { Session } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { sessionHref } from "../shell/router.ts";
import { PickAndAct } from "./pick-and-act.tsx";

/** Forks the session (POST …/fork) and opens the new one: its conversation is handed to its agent with the first prompt. */
async function forkAndOpen(sessionId: string, body: { itemId?: string; harnessId?: string }): Promise<void> {
  const forked = await api<Session>("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/fork`, body);
  location.hash = sessionHref(forked.id);
}

/** Under a finished reply: a new session with the conversation up to and including it. */
export function ForkFromHere({ sessionId, itemId }: { sessionId: string; itemId: string }) {
  const action = useAction();
  return (
    <div class="fork-from-here">
      <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => void action.run(() => forkAndOpen(sessionId, { itemId }))}>
        {action.busy ? "Forking…" : "Fork from here"}
        <span class="visually-hidden"> (a new session with the conversation up to this reply)</span>
      </button>
      <Alert error={action.error} />
    </div>
  );
}

/** In the session's Manage menu: another agent picks up the whole conversation in a new session. */
export function ContinueWith({ session }: { session: Session }) {
  const [harnesses, setHarnesses] = useState<Harness[] | null>(null);
  const read = useAction();
  useEffect(() => {
    void read.run(async () => setHarnesses(await api<Harness[]>("GET", "/v1/harnesses")));
  }, []);
  const others = (harnesses ?? []).filter((harness) => harness.enabled && harness.id !== session.harnessId);
  if (harnesses === null) return <Alert error={read.error} />;
  if (others.length === 0) return <p class="quiet">No other agent is ready to continue this conversation.</p>;
  return (
    <PickAndAct
      name="Continue with another agent"
      label="Continue with…"
      choices={others.map(({ id, name }) => ({ value: id, label: name }))}
      text="Continue"
      busyText="Starting…"
      act={(harnessId) => forkAndOpen(session.id, { harnessId })}
    />
  );
}
