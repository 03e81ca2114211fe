import { updateRoutes } from "../http/routes/update-routes.ts";
import { createServerUpdates, type UpdateTuning } from "../update/server-updates.ts";
import { updateSettingsFromConfig } from "../update/update-config.ts";
import { defineModule } from "./module.ts";
import { sessionsModule } from "./sessions-module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

/** Self-update: checks for new releases, and swaps this executable for one (held while turns run). */
export const updatesModule = defineModule({
  name: "updates",
  features: MODULE_FEATURES.updates,
  eventKinds: {},
  create: (context, tuning: UpdateTuning | undefined) => {
    const updates = createServerUpdates({
      settings: updateSettingsFromConfig(context.config),
      tuning,
      dataDir: context.paths.root,
      logger: context.logger,
      sessions: context.modules.get(sessionsModule).sessions,
      migrationState: () => context.server.migrationState(),
      stopServer: () => context.server.stop(),
      clock: context.clock,
    });
    return {
      routes: updateRoutes(updates),
      start: () => {
        updates.reconcileAfterStart();
        updates.startAutomaticChecks();
      },
      stop: () => updates.stop(),
    };
  },
});
