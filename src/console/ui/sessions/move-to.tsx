import { useState } from "preact/hooks";
import type { Session } from "../../../schemas/sessions.ts";
import { useMachines } from "../machines/use-machines.ts";
import { api } from "../shared/api.ts";
import { SelectField } from "../shared/fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

/**
 * In the session's Manage menu, when machines are paired: the session moves to the one picked, with
 * its conversation, queue, goal, branch and uncommitted changes. The page then shows where it went.
 */
export function MoveTo({ session }: { session: Session }) {
  const { items: machines, error } = useMachines();
  const [machineId, setMachineId] = useState("");
  const action = useAction();
  const others = (machines ?? []).filter((machine) => !machine.isCurrent);
  const chosen = others.find((machine) => machine.id === machineId) ?? others[0];
  if (machines === null) return <Alert error={error} />;
  if (!chosen || session.move) return null;
  return (
    <form
      class="continue-with"
      aria-label="Move to another machine"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(() => api<Session>("POST", `/v1/sessions/${encodeURIComponent(session.id)}/move`, { machineId: chosen.id }));
      }}
    >
      <SelectField
        label="Move to…"
        value={chosen.id}
        choices={others.map(({ id, name, online }) => ({ value: id, label: online ? name : `${name} (offline)` }))}
        onValue={setMachineId}
      />
      <button type="submit" class="quiet-button small" disabled={action.busy}>
        {action.busy ? "Moving…" : "Move"}
      </button>
      <Alert error={action.error} />
    </form>
  );
}

/** A session that moved, or is moving: where to, since its conversation goes on there. */
export function MovedNotice({ move }: { move: NonNullable<Session["move"]> }) {
  return (
    <p class="moved-notice" role="status">
      {move.state === "moving" ? (
        <>
          Moving to <strong>{move.machineName}</strong>…
        </>
      ) : (
        <>
          Moved to <strong>{move.machineName}</strong>: open it there, as session <code>{move.sessionId}</code>, to go on.
        </>
      )}
    </p>
  );
}
