import { useEffect, useState } from "preact/hooks";
import type { Harness } from "../../../schemas/harnesses.ts";
import type { Session } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { SelectField } from "../shared/fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import { sessionHref } from "../shell/router.ts";

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
  const [harnessId, setHarnessId] = useState("");
  const read = useAction();
  const action = useAction();
  useEffect(() => {
    void read.run(async () => setHarnesses(await api<Harness[]>("GET", "/v1/harnesses")));
  }, []);
  const others = (harnesses ?? []).filter((harness) => harness.enabled && harness.id !== session.harnessId);
  const chosen = others.find((harness) => harness.id === harnessId) ?? others[0];
  if (harnesses === null) return <Alert error={read.error} />;
  if (!chosen) return <p class="quiet">No other agent is ready to continue this conversation.</p>;
  return (
    <form
      class="continue-with"
      aria-label="Continue with another agent"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(() => forkAndOpen(session.id, { harnessId: chosen.id }));
      }}
    >
      <SelectField label="Continue with…" value={chosen.id} choices={others.map(({ id, name }) => ({ value: id, label: name }))} onValue={setHarnessId} />
      <button type="submit" class="quiet-button small" disabled={action.busy}>
        {action.busy ? "Starting…" : "Continue"}
      </button>
      <Alert error={action.error} />
    </form>
  );
}
