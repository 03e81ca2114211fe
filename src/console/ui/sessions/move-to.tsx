import type { Machine } from "../../../schemas/machines.ts";
import type { Session } from "../../../schemas/sessions.ts";
import { useMachines } from "../machines/use-machines.ts";
import { api } from "../shared/api.ts";
import { Alert } from "../shared/use-action.tsx";
import { PickAndAct } from "./pick-and-act.tsx";

/**
 * In the session's Manage menu, when machines are paired: the session moves to the one picked, with
 * its conversation, queue, goal, branch and uncommitted changes. The page then shows where it went.
 */
export function MoveTo({ session }: { session: Session }) {
  const { items: machines, error } = useMachines();
  if (machines === null) return <Alert error={error} />;
  if (session.move) return null;
  return (
    <PickAndAct
      name="Move to another machine"
      label="Move to…"
      choices={machines.filter((machine) => !machine.isCurrent).map(({ id, name, online }) => ({ value: id, label: online ? name : `${name} (offline)` }))}
      text="Move"
      busyText="Moving…"
      act={(machineId) => api<Session>("POST", `/v1/sessions/${encodeURIComponent(session.id)}/move`, { machineId })}
    />
  );
}

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\])$/;

/**
 * Where this browser can open the other machine's console: only while the machine answers, and not at a
 * loopback address unless this console is on loopback too (then both are on the browser's machine).
 * The console's policy lets it call no other origin, so a link is what it offers, not a probe.
 */
function reachableUrl(machine: Machine | undefined): string | null {
  if (!machine?.online) return null;
  const host = new URL(machine.url).hostname;
  return LOOPBACK.test(host) && !LOOPBACK.test(location.hostname) ? null : machine.url;
}

/** A session that moved, or is moving: where to, since its conversation goes on there; a link to it there when this browser can reach it. */
export function MovedNotice({ move }: { move: NonNullable<Session["move"]> }) {
  const { items: machines } = useMachines();
  const url = reachableUrl(machines?.find((machine) => machine.id === move.machineId));
  if (move.state === "moving") {
    return (
      <p class="moved-notice" role="status">
        Moving to <strong>{move.machineName}</strong>…
      </p>
    );
  }
  return (
    <p class="moved-notice" role="status">
      Moved to <strong>{move.machineName}</strong>, where it goes on as session <code>{move.sessionId}</code>.{" "}
      {url && <a href={`${url}/#/sessions/${encodeURIComponent(move.sessionId)}`}>Open it on {move.machineName}</a>}
    </p>
  );
}
