import type { Clock } from "../clock.ts";
import type { Logger } from "../logging/logger.ts";
import type { McpRepository, StoredMcpProbe } from "../store/mcp-repository.ts";
import type { Store } from "../store/database.ts";
import { probeMcpServer, type McpEndpoint, type ProbeOptions, type ProbeOutcome } from "./mcp-probe.ts";

export interface McpProberDeps {
  store: Store;
  repository: McpRepository;
  clock: Clock;
  logger: Logger;
  probeOptions: ProbeOptions;
  /** Probes running at once; more wait their turn. */
  maxParallel: number;
  /** Called inside the transaction that records a server's new state, to publish it. */
  publish(serverId: string): void;
  /** How to reach the server now (secrets and a fresh OAuth token filled in); undefined when it is gone. */
  endpointOf(serverId: string): Promise<McpEndpoint | undefined>;
}

/**
 * Runs probes and records what they find: `connecting` when one starts, its outcome when it ends, each
 * change with its `mcp.updated` event. A newer probe of the same server makes an older one's outcome
 * moot; a failed write (locked or full database) is logged and the server goes on serving.
 */
export class McpProber {
  private readonly generations = new Map<string, number>();
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private stopped = false;

  constructor(private readonly deps: McpProberDeps) {}

  /** Starts a probe (superseding one that runs) and settles when it has been recorded. */
  probe(serverId: string): Promise<void> {
    const generation = this.forget(serverId);
    const previous = this.deps.repository.probe(serverId);
    this.record(serverId, generation, { ...(previous ?? NOT_PROBED), connectionState: "connecting", detail: "" });
    return this.run(serverId, generation);
  }

  /** Marks a server not probed (turned off, here or everywhere); a probe that runs is made moot. */
  disconnect(serverId: string, detail: string): void {
    this.record(serverId, this.forget(serverId), { ...NOT_PROBED, detail });
  }

  /** Makes a probe that runs moot (a removed server: nothing more is recorded of it); returns the new generation. */
  forget(serverId: string): number {
    const generation = (this.generations.get(serverId) ?? 0) + 1;
    this.generations.set(serverId, generation);
    return generation;
  }

  stop(): void {
    this.stopped = true;
    for (const resume of this.waiting.splice(0)) resume();
  }

  private async run(serverId: string, generation: number): Promise<void> {
    await this.slot();
    try {
      if (this.stopped || this.generations.get(serverId) !== generation) return;
      const endpoint = await this.deps.endpointOf(serverId);
      if (!endpoint) return;
      const outcome = await probeMcpServer(endpoint, { clock: this.deps.clock, ...this.deps.probeOptions });
      this.record(serverId, generation, toProbe(outcome, this.deps.clock));
    } catch (error) {
      this.deps.logger.warn("an MCP probe failed unexpectedly", { serverId, error: (error as Error).message });
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  private async slot(): Promise<void> {
    if (this.active >= this.deps.maxParallel && !this.stopped) await new Promise<void>((resume) => this.waiting.push(resume));
    this.active++;
  }

  private record(serverId: string, generation: number, probe: StoredMcpProbe): void {
    if (this.stopped || this.generations.get(serverId) !== generation) return;
    try {
      this.deps.store.transaction(() => {
        this.deps.repository.saveProbe(serverId, probe);
        this.deps.publish(serverId);
      });
    } catch (error) {
      this.deps.logger.warn("could not record an MCP server's state", { serverId, state: probe.connectionState, error: (error as Error).message });
    }
  }
}

/** A server no probe has looked at on this machine. */
export const NOT_PROBED: StoredMcpProbe = { connectionState: "disconnected", toolCount: 0, detail: "", oauthScope: "", probedAt: null };

const toProbe = (outcome: ProbeOutcome, clock: Clock): StoredMcpProbe => ({ ...outcome, probedAt: new Date(clock.now()).toISOString() });
