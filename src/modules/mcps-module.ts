import { homedir } from "node:os";
import { mcpConfigs } from "../harness/harness-user-files.ts";
import { mcpRoutes } from "../http/routes/mcp-routes.ts";
import { HarnessMcpConfigs } from "../mcp/harness-mcp-configs.ts";
import { McpOAuth } from "../mcp/mcp-oauth.ts";
import { McpProber } from "../mcp/mcp-prober.ts";
import { McpReplica } from "../mcp/mcp-replica.ts";
import { McpService } from "../mcp/mcp-service.ts";
import { McpEvents } from "../schemas/mcps.ts";
import { McpRepository } from "../store/mcp-repository.ts";
import { buildInfo } from "../system/build-info.ts";
import { harnessesModule } from "./harnesses-module.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { syncModule } from "./sync-module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

export interface McpTuning {
  /** A probe that has not listed the tools by then has failed. */
  probeTimeoutMs?: number;
  /** The environment stdio servers are probed in, beneath their own values; the server's own by default. */
  env?: Record<string, string | undefined>;
}

/** An npx-started server may download itself on its first probe; past this it is reported as failed, and probed again on request. */
const PROBE_TIMEOUT_MS = 30_000;
/** Probes at once: each may be a process; the rest wait their turn. */
const MAX_PARALLEL_PROBES = 50;

/** MCP servers: the registry, each machine's choice, probes, OAuth sign-ins, and the servers sessions are given. */
export const mcpsModule = defineModule({
  name: "mcps",
  features: MODULE_FEATURES.mcps,
  eventKinds: McpEvents,
  create: ({ store, logger, clock, identity, tokens, paths, modules }, tuning: McpTuning | undefined) => {
    const { events, children } = modules.get(coreModule);
    const { harnesses } = modules.get(harnessesModule);
    const repository = new McpRepository(store);
    const env = tuning?.env ?? process.env;
    // The prober asks the service (built next) what a server is now; both hold the other for good.
    const prober = new McpProber({
      store,
      repository,
      clock,
      logger,
      maxParallel: MAX_PARALLEL_PROBES,
      probeOptions: { timeoutMs: tuning?.probeTimeoutMs ?? PROBE_TIMEOUT_MS, children, baseEnv: env, cwd: env.HOME ?? homedir(), version: buildInfo.version },
      publish: (id) => mcps.publish(id),
      endpointOf: (id) => mcps.endpointOf(id),
    });
    const mcps = new McpService({
      store,
      repository,
      events,
      clock,
      machineId: identity.machineId,
      harnessConfigs: new HarnessMcpConfigs(() => mcpConfigs(harnesses.installed()), logger),
      oauth: new McpOAuth({ repository, clock }),
      own: { isAccessToken: (text) => tokens.verify(text) !== null, tokenFile: paths.adminToken },
      logger,
      replica: new McpReplica(modules.get(syncModule).sync),
      prober,
    });
    return {
      routes: mcpRoutes(mcps),
      mcps,
      start: () => {
        try {
          mcps.mirrorUnmirrored();
        } catch (error) {
          logger.error("the MCP servers made before could not be readied for paired machines; they go with their next change", { error });
        }
        mcps.probeAll();
      },
      stop: () => prober.stop(),
    };
  },
});
