import { pluginRoutes } from "../http/routes/plugin-routes.ts";
import { PluginInstaller } from "../plugins/plugin-installer.ts";
import { DEFAULT_PANE_TIMINGS, PluginPanes, type PaneTimings } from "../plugins/plugin-panes.ts";
import { DEFAULT_PLUGIN_TIMINGS, PluginProcesses, type PluginProcessTimings } from "../plugins/plugin-processes.ts";
import { PluginService } from "../plugins/plugin-service.ts";
import { PluginToolServer } from "../plugins/plugin-tools.ts";
import { PluginEvents } from "../schemas/plugins.ts";
import { PluginRepository } from "../store/plugin-repository.ts";
import { buildInfo } from "../system/build-info.ts";
import { harnessesModule } from "./harnesses-module.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

export interface PluginTuning {
  /** The environment plugins and their setup run in (PATH for their requirements); the server's own by default. */
  env?: Record<string, string | undefined>;
  processes?: Partial<PluginProcessTimings>;
  panes?: Partial<PaneTimings>;
  /** The version plugins' minServiceVersion is compared with; this build's by default. */
  serverVersion?: string;
}

/** A setup command (an `npm install`, a build) that runs longer than this has failed. */
const SETUP_TIMEOUT_MS = 10 * 60_000;

/** Plugins: installed from git or a folder with consent, run and supervised, their panes and tools passed on. */
export const pluginsModule = defineModule({
  name: "plugins",
  features: MODULE_FEATURES.plugins,
  eventKinds: PluginEvents,
  create: ({ store, logger, clock, paths, modules }, tuning: PluginTuning | undefined) => {
    const { events, children } = modules.get(coreModule);
    const env = tuning?.env ?? process.env;
    const repository = new PluginRepository(store);
    const processes = new PluginProcesses({
      children,
      clock,
      logger,
      env,
      timings: { ...DEFAULT_PLUGIN_TIMINGS, ...tuning?.processes },
      // Called only once processes run, after the service below exists.
      onChange: (id) => plugins.publishInBackground(id),
    });
    const installer = new PluginInstaller({
      pluginsDir: paths.plugins,
      terminals: modules.get(harnessesModule).terminals,
      children,
      env,
      serverVersion: tuning?.serverVersion ?? buildInfo.version,
      setupTimeoutMs: SETUP_TIMEOUT_MS,
      progress: (pluginId, step, detail, terminalId) => {
        try {
          store.transaction(() => events.append("plugin.install.progress", pluginId, { pluginId, step, detail, terminalId }));
        } catch (error) {
          logger.warn("could not record a plugin install's progress", { pluginId, step, error: (error as Error).message });
        }
      },
    });
    const panes = new PluginPanes({ clock, timings: { ...DEFAULT_PANE_TIMINGS, ...tuning?.panes } });
    const plugins = new PluginService({ store, repository, events, installer, processes, panes, clock, logger, pluginsDir: paths.plugins });
    const toolServer = new PluginToolServer(plugins);
    return {
      plugins,
      toolServer,
      routes: pluginRoutes(plugins, toolServer),
      start: () => plugins.startAll(),
      stop: () => processes.stopAll(),
    };
  },
});
