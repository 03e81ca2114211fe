import type { Machine, MachineList } from "../../../schemas/machines.ts";
import { api } from "../shared/api.ts";
import { type ListSource, useLiveList } from "../shared/use-live-list.ts";

const MACHINES: ListSource<Machine> = {
  kinds: ["machine.*"],
  readAll: async () => (await api<MachineList>("GET", "/v1/machines")).machines,
  apply(event, { keep, forget }) {
    if (event.kind === "machine.updated") keep(event.payload as Machine);
    else if (event.kind === "machine.deleted") forget((event.payload as { id: string }).id);
  },
  // This machine first, then its peers in the order they came, which is pairing order (the sort is stable).
  compare: (a, b) => Number(b.isCurrent) - Number(a.isCurrent),
};

/**
 * This machine and its paired peers, followed live through `machine.updated` and `machine.deleted`
 * (pairing, renames, going on- or offline, unpairing on either side), so the page needs no polling.
 * `lastSeen` of a peer that stays online moves without an event; the list shows it as of the last
 * change, which is what tells when an offline one was last heard from.
 */
export const useMachines = () => useLiveList(MACHINES);
