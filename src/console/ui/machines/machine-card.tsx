import type { Machine, MachineList } from "../../../schemas/machines.ts";
import { api } from "../shared/api.ts";
import { ConfirmButton } from "../shared/confirm-button.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

const shownTime = (time: string) => new Date(time).toLocaleString();

/** Unpairing, behind a second "Unpair <name>?" click. */
function UnpairControl({ machine, onUnpaired }: { machine: Machine; onUnpaired: (id: string) => void }) {
  const { busy, error, run } = useAction();
  const unpair = () =>
    run(async () => {
      await api<MachineList>("DELETE", `/v1/machines/${encodeURIComponent(machine.id)}`);
      onUnpaired(machine.id);
    });
  return (
    <>
      <ConfirmButton
        verb="Unpair"
        name={machine.name}
        note="It is told to forget this machine too, and its token here is revoked. Pairing again needs a new code."
        busy={busy}
        onConfirm={unpair}
      />
      <Alert error={error} />
    </>
  );
}

/** One machine: whether it answers, when it was last heard from, and who paired it here. */
export function MachineCard({ machine, onUnpaired }: { machine: Machine; onUnpaired: (id: string) => void }) {
  return (
    <li class="card machine-card" data-machine={machine.id} aria-label={machine.name}>
      <div class="card-title">
        <h3>{machine.name}</h3>
        <span class="machine-badges">
          {machine.isCurrent && <span class="badge">This machine</span>}
          <span class={`badge ${machine.online ? "ready" : "error"}`}>{machine.online ? "Online" : "Offline"}</span>
        </span>
      </div>
      <dl class="facts">
        <dt>ID</dt>
        <dd class="machine-id">{machine.id}</dd>
        <dt>OS</dt>
        <dd>{machine.os}</dd>
        {!machine.isCurrent && (
          <>
            <dt>Last seen</dt>
            <dd>
              <time dateTime={machine.lastSeen}>{shownTime(machine.lastSeen)}</time>
            </dd>
            <dt>Added by</dt>
            <dd>{machine.addedBy || "—"}</dd>
          </>
        )}
      </dl>
      {!machine.isCurrent && <UnpairControl machine={machine} onUnpaired={onUnpaired} />}
    </li>
  );
}
