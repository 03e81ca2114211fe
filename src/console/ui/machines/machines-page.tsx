import { MachineCard } from "./machine-card.tsx";
import { PairForm } from "./pair-form.tsx";
import { PairingCodePanel } from "./pairing-code-panel.tsx";
import { Alert } from "../shared/use-action.tsx";
import { useMachines } from "./use-machines.ts";
import { PageHeading } from "../shell/page-heading.tsx";

/** This machine and the machines paired with it, followed live; pairing both ways, and unpairing. */
export function MachinesPage() {
  const { items: machines, error, add, forget } = useMachines();
  return (
    <section class="machines-page">
      <header class="page-header">
        <PageHeading text="Machines" />
      </header>
      <Alert error={error} />
      {machines === null ? (
        !error && <p class="quiet">Loading…</p>
      ) : (
        <ul class="cards machine-cards" aria-label="Machines">
          {machines.map((machine) => (
            <MachineCard key={machine.id} machine={machine} onUnpaired={forget} />
          ))}
        </ul>
      )}
      {machines?.length === 1 && <p class="quiet">No other machine is paired with this one yet.</p>}
      <div class="machine-panels">
        <PairingCodePanel />
        <PairForm onPaired={add} />
      </div>
    </section>
  );
}
