import { hostname } from "node:os";
import { machineRoutes } from "../http/routes/machine-routes.ts";
import { MachineService, peerUrl, type MachineTiming } from "../machines/machine-service.ts";
import { MachineEvents } from "../schemas/machines.ts";
import type { SyncEvents } from "../schemas/sync.ts";
import { MachineRepository } from "../store/machine-repository.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { syncModule } from "./sync-module.ts";
import type { Static } from "@sinclair/typebox";
import { MODULE_FEATURES } from "./module-features.ts";

const TIMING: MachineTiming = { heartbeatMs: 30_000, maxBackoffMs: 5 * 60_000, requestTimeoutMs: 5_000, pairTimeoutMs: 10_000 };

const osName = (platform: NodeJS.Platform): string => (platform === "win32" ? "windows" : platform);

/** The machines of one account: pairing, their list and presence, and keeping sync namespaces in step between them. */
export const machinesModule = defineModule({
  name: "machines",
  features: MODULE_FEATURES.machines,
  eventKinds: MachineEvents,
  create: ({ store, clock, logger, tokens, identity, config, server, modules }, tuning: Partial<MachineTiming> | undefined) => {
    const { events } = modules.get(coreModule);
    const sync = modules.get(syncModule).sync;
    const machines = new MachineService({
      store,
      repository: new MachineRepository(store),
      tokens,
      events,
      sync,
      clock,
      logger,
      timing: { ...TIMING, ...tuning },
      self: {
        id: identity.machineId,
        name: config.machineName ?? hostname(),
        os: osName(process.platform),
        // A peer is told the first address it can reach (publicUrl leads when set), never a wildcard.
        url: config.publicUrl ? peerUrl(config.publicUrl, `config.json "publicUrl"`) : (server.reachableUrls()[0] ?? server.url),
      },
    });
    events.subscribe((event) => {
      if (event.record.kind !== "sync.changed") return;
      const { namespace, keys } = event.record.payload as Static<(typeof SyncEvents)["sync.changed"]>;
      machines.changedHere(namespace, keys);
    });
    return { machines, routes: machineRoutes(machines), start: () => machines.start(), stop: () => machines.stop() };
  },
});
