import { syncRoutes } from "../http/routes/sync-routes.ts";
import { SyncEvents } from "../schemas/sync.ts";
import { SyncRepository } from "../store/sync-repository.ts";
import { SyncService } from "../sync/sync-service.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

/** Settings namespaces clients keep in step across devices (and paired machines: the machines module). */
export const syncModule = defineModule({
  name: "sync",
  features: MODULE_FEATURES.sync,
  eventKinds: SyncEvents,
  create: ({ store, clock, identity, modules }) => {
    const sync = new SyncService({ store, entries: new SyncRepository(store), events: modules.get(coreModule).events, clock, deviceId: identity.machineId });
    return { sync, routes: syncRoutes(sync) };
  },
});
