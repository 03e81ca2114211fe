import type { Clock, ClockTimer } from "../clock.ts";
import type { Logger } from "../logging/logger.ts";
import type { ChildProcesses } from "../process/child-processes.ts";
import { lastLinesSuffix, spawnStdioChild, StdioSpawnError, type StdioChild } from "../process/stdio-child.ts";

export type PluginProcessState = "stopped" | "starting" | "running" | "failed";

/** How one plugin is run: its command in its folder, with the port it must serve on. */
export interface PluginLaunch {
  id: string;
  folder: string;
  runCommand: string[];
}

export interface PluginProcessTimings {
  /** A new process must answer HTTP within this long. */
  startTimeoutMs: number;
  /** A running plugin is asked this often whether it still answers. */
  healthIntervalMs: number;
  /** Waits before restarts after the first, second, … crash in a row. */
  restartBackoffMs: number[];
  /** This many crashes within `crashWindowMs` and the plugin is `failed` until restarted by hand. */
  maxCrashes: number;
  crashWindowMs: number;
}

export const DEFAULT_PLUGIN_TIMINGS: PluginProcessTimings = {
  startTimeoutMs: 15_000,
  healthIntervalMs: 15_000,
  restartBackoffMs: [1_000, 2_000, 4_000],
  maxCrashes: 3,
  crashWindowMs: 60_000,
};

/** A health request that gets no answer within this long (on the supervisor's clock) counts as no answer. */
export const HEALTH_REQUEST_TIMEOUT_MS = 3_000;
const STDERR_LINES = 3;

interface Supervised {
  launch: PluginLaunch;
  state: PluginProcessState;
  lastError: string | null;
  port: number | null;
  child?: StdioChild;
  crashes: number[];
  timer?: ClockTimer;
  /** Bumped on every start and stop: what an older process reports is moot. */
  generation: number;
}

/**
 * The processes of enabled plugins: each started with a loopback port of its own
 * (`ATRIUM_PLUGIN_PORT`), running once it answers HTTP, asked again every so often, restarted with
 * backoff after a crash and `failed` after repeated ones. Every process is recorded with the
 * server's children, so shutdown and the next start after a crash stop it and what it started.
 */
export class PluginProcesses {
  private readonly plugins = new Map<string, Supervised>();

  constructor(
    private readonly deps: {
      children: ChildProcesses;
      clock: Clock;
      logger: Logger;
      timings: PluginProcessTimings;
      /** The environment plugins run in, beneath ATRIUM_PLUGIN_PORT. */
      env: Record<string, string | undefined>;
      /** Told of every change of state (to publish it). */
      onChange(id: string): void;
    },
  ) {}

  state(id: string): { state: PluginProcessState; lastError: string | null; port: number | null } {
    const plugin = this.plugins.get(id);
    return plugin
      ? { state: plugin.state, lastError: plugin.lastError, port: plugin.state === "running" ? plugin.port : null }
      : { state: "stopped", lastError: null, port: null };
  }

  /** Starts (or restarts from scratch, crashes forgotten) a plugin's process. */
  start(launch: PluginLaunch): void {
    const existing = this.plugins.get(launch.id);
    if (existing) this.halt(existing);
    const plugin: Supervised = { launch, state: "starting", lastError: null, port: null, crashes: [], generation: (existing?.generation ?? 0) + 1 };
    this.plugins.set(launch.id, plugin);
    void this.run(plugin);
  }

  /** Stops a plugin's process and what it started; its state becomes `stopped`. */
  stop(id: string): void {
    const plugin = this.plugins.get(id);
    if (!plugin) return;
    this.halt(plugin);
    this.plugins.delete(id);
    this.deps.onChange(id);
  }

  stopAll(): void {
    for (const plugin of this.plugins.values()) this.halt(plugin);
    this.plugins.clear();
  }

  private halt(plugin: Supervised): void {
    plugin.generation++;
    this.deps.clock.clearTimeout(plugin.timer);
    plugin.child?.stop();
    plugin.child = undefined;
  }

  private async run(plugin: Supervised): Promise<void> {
    const generation = plugin.generation;
    const current = () => plugin.generation === generation && this.plugins.get(plugin.launch.id) === plugin;
    this.set(plugin, "starting", plugin.lastError);
    let child: StdioChild;
    try {
      plugin.port = await freePort();
      if (!current()) return;
      child = spawnStdioChild({
        command: plugin.launch.runCommand,
        cwd: plugin.launch.folder,
        env: { ...this.deps.env, ATRIUM_PLUGIN_PORT: String(plugin.port) },
        children: this.deps.children,
      });
    } catch (error) {
      if (error instanceof StdioSpawnError) return this.crashed(plugin, generation, error.message);
      throw error;
    }
    plugin.child = child;
    void child.exited.then((code) => {
      if (plugin.child === child) this.crashed(plugin, generation, `exited with code ${code}${tail(child)}`);
    });
    const answered = await this.answersWithin(plugin.port, this.deps.timings.startTimeoutMs, () => current() && child.running);
    if (!current() || !child.running) return;
    if (!answered) {
      plugin.child = undefined;
      child.stop();
      return this.crashed(plugin, generation, `did not answer HTTP on its port within ${this.deps.timings.startTimeoutMs / 1000} s${tail(child)}`);
    }
    this.set(plugin, "running", null);
    this.watch(plugin, generation, child);
  }

  /** Asks the running plugin every so often; no answer is a crash (the process is stopped and restarted). */
  private watch(plugin: Supervised, generation: number, child: StdioChild): void {
    plugin.timer = this.deps.clock.setTimeout(async () => {
      if (plugin.generation !== generation || plugin.child !== child) return;
      if (await this.answers(plugin.port!)) return this.watch(plugin, generation, child);
      if (plugin.generation !== generation || plugin.child !== child) return;
      plugin.child = undefined;
      child.stop();
      this.crashed(plugin, generation, "stopped answering its health check");
    }, this.deps.timings.healthIntervalMs);
  }

  private crashed(plugin: Supervised, generation: number, reason: string): void {
    if (plugin.generation !== generation) return;
    plugin.child = undefined;
    const now = this.deps.clock.now();
    plugin.crashes = [...plugin.crashes.filter((at) => now - at < this.deps.timings.crashWindowMs), now];
    const { maxCrashes, crashWindowMs, restartBackoffMs } = this.deps.timings;
    this.deps.logger.warn("a plugin's process ended", { pluginId: plugin.launch.id, reason, crashes: plugin.crashes.length });
    if (plugin.crashes.length >= maxCrashes) {
      this.set(plugin, "failed", `${reason} (${plugin.crashes.length} times within ${crashWindowMs / 1000} s; restart it by hand)`);
      return;
    }
    this.set(plugin, "starting", reason);
    const wait = restartBackoffMs[Math.min(plugin.crashes.length - 1, restartBackoffMs.length - 1)] ?? 0;
    plugin.timer = this.deps.clock.setTimeout(() => {
      if (plugin.generation === generation) void this.run(plugin);
    }, wait);
  }

  private set(plugin: Supervised, state: PluginProcessState, lastError: string | null): void {
    plugin.state = state;
    plugin.lastError = lastError;
    this.deps.onChange(plugin.launch.id);
  }

  private async answersWithin(port: number, timeoutMs: number, stillWanted: () => boolean): Promise<boolean> {
    const deadline = this.deps.clock.now() + timeoutMs;
    while (stillWanted() && this.deps.clock.now() < deadline) {
      if (await this.answers(port)) return true;
      await this.deps.clock.sleep(100);
    }
    return false;
  }

  /** Any HTTP answer at `/` counts: the plugin is up. */
  private async answers(port: number): Promise<boolean> {
    const abort = new AbortController();
    const timer = this.deps.clock.setTimeout(() => abort.abort(), HEALTH_REQUEST_TIMEOUT_MS);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/`, { signal: abort.signal, redirect: "manual" });
      await response.body?.cancel();
      return true;
    } catch {
      return false;
    } finally {
      this.deps.clock.clearTimeout(timer);
    }
  }
}

function tail(child: StdioChild): string {
  return lastLinesSuffix(child.stderrTail(), STDERR_LINES);
}

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}
