import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import { ConflictError, NotFoundError, UpstreamError } from "../errors.ts";
import type { EventLog } from "../events/event-log.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logging/logger.ts";
import type { OpenedPane, Plugin, PluginDiscovery, PluginEvents, PluginManifest, PluginUpdatePlan } from "../schemas/plugins.ts";
import type { Store } from "../store/database.ts";
import type { PluginRepository, StoredPlugin } from "../store/plugin-repository.ts";
import { removeVersion, type PluginInstaller } from "./plugin-installer.ts";
import { consentChanges, displayCommand } from "./plugin-manifest.ts";
import { panePreflight, proxyToPlugin, type PluginPanes } from "./plugin-panes.ts";
import type { PluginProcesses } from "./plugin-processes.ts";
import { callPluginTool, checkToolInput, type PluginToolCatalog } from "./plugin-tools.ts";

export interface PluginServiceDeps {
  store: Store;
  repository: PluginRepository;
  events: EventLog<typeof PluginEvents>;
  installer: PluginInstaller;
  processes: PluginProcesses;
  panes: PluginPanes;
  clock: Clock;
  logger: Logger;
  pluginsDir: string;
}

/** An update plan lasts this long; applying it later is a 409 (plan again). */
const PLAN_LIFETIME_MS = 10 * 60_000;

interface Plan {
  pluginId: string;
  consentKey: string;
  expiresAtMs: number;
}

/**
 * Installed plugins: discovery and consent, install, enabling (which runs the process), panes and
 * tools passed on to the running process, updates with the version before kept to restore, uninstall.
 */
export class PluginService implements PluginToolCatalog {
  private readonly plans = new Map<string, Plan>();

  constructor(private readonly deps: PluginServiceDeps) {}

  list(): Plugin[] {
    return this.deps.repository.list().map((plugin) => this.view(plugin));
  }

  get(id: string): Plugin {
    return this.view(this.stored(id));
  }

  /** Reads the plugin from its source without installing or running anything. */
  discover(source: string): Promise<PluginDiscovery> {
    return this.deps.installer.inspect(source, ({ manifest, commit, consentKey }) => ({
      ...shownFields(manifest, consentKey, source),
      installCommand: this.deps.installer.installCommand(manifest),
      setupCommands: manifest.setupCommands,
      minServiceVersion: manifest.minServiceVersion,
      requirements: manifest.requirements,
      runCommand: displayCommand(manifest.runCommand),
      alreadyInstalled: this.deps.repository.get(manifest.id) !== undefined,
      sourceCommit: commit,
    }));
  }

  async install(source: string, consentKey: string): Promise<Plugin> {
    const version = await this.deps.installer.install(source, consentKey, (manifest) => this.checkNotInstalled(manifest.id));
    const now = this.timestamp();
    const plugin: StoredPlugin = { id: version.manifest.id, source, enabled: true, previous: null, installedAt: now, updatedAt: now, ...version };
    try {
      this.deps.store.transaction(() => {
        this.checkNotInstalled(plugin.id);
        this.deps.repository.save(plugin);
        this.publish(plugin.id);
      });
    } catch (error) {
      removeVersion(version.path);
      throw error;
    }
    this.launch(plugin);
    return this.get(plugin.id);
  }

  private checkNotInstalled(id: string): void {
    if (this.deps.repository.get(id)) throw new ConflictError(`plugin ${id} is installed already: update it instead`);
  }

  setEnabled(id: string, enabled: boolean): Plugin {
    const plugin = { ...this.stored(id), enabled, updatedAt: this.timestamp() };
    this.deps.store.transaction(() => {
      this.deps.repository.save(plugin);
      this.publish(id);
    });
    if (enabled) this.launch(plugin);
    else this.deps.processes.stop(id);
    return this.get(id);
  }

  /** Starts the process again from scratch (crash count forgotten): the way out of `failed`. */
  restart(id: string): Plugin {
    const plugin = this.stored(id);
    if (!plugin.enabled) throw new ConflictError(`plugin ${id} is disabled: enable it (PATCH {enabled: true}) to run it`);
    this.launch(plugin);
    return this.get(id);
  }

  remove(id: string): Plugin[] {
    const plugin = this.stored(id);
    this.deps.processes.stop(id);
    this.deps.panes.closeAll(id);
    this.deps.store.transaction(() => {
      this.deps.repository.remove(id);
      this.deps.events.append("plugin.deleted", id, { id });
    });
    rmSync(join(this.deps.pluginsDir, plugin.id), { recursive: true, force: true });
    return this.list();
  }

  openPane(id: string, type: string, base: string): OpenedPane {
    const plugin = this.stored(id);
    const pane = plugin.manifest.panes.find((candidate) => candidate.type === type);
    if (!pane) throw new NotFoundError(`plugin ${id} has no pane ${type}`);
    if (!plugin.enabled) throw new ConflictError(`plugin ${id} is disabled: enable it to open its panes`);
    const opened = this.deps.panes.open(id, pane.path, base);
    this.publishInBackground(id);
    return opened;
  }

  closePane(id: string, ticket: string): Plugin {
    this.stored(id);
    this.deps.panes.close(id, ticket);
    this.publishInBackground(id);
    return this.get(id);
  }

  /** A web view's request under a pane's URL, passed on to the plugin (502 when it is not running). */
  async paneRequest(id: string, ticket: string, path: string, request: Request): Promise<Response> {
    this.deps.panes.use(id, ticket);
    return proxyToPlugin(request, this.runningPort(id), path);
  }

  /** A CORS preflight of a pane's own request, answered here for an open pane (404 otherwise), running or not. */
  panePreflight(id: string, ticket: string, request: Request): Response {
    this.deps.panes.use(id, ticket);
    return panePreflight(request);
  }

  async callTool(id: string, name: string, input: unknown): Promise<unknown> {
    const tool = this.stored(id).manifest.tools.find((candidate) => candidate.name === name);
    if (!tool) throw new NotFoundError(`plugin ${id} has no tool ${name}`);
    await checkToolInput(tool, input);
    return callPluginTool(this.runningPort(id), tool, input);
  }

  /** The tools of the plugins that run now (for Atrium's MCP endpoint). */
  tools(): Array<{ pluginId: string; tool: StoredPlugin["manifest"]["tools"][number] }> {
    return this.deps.repository
      .list()
      .filter((plugin) => plugin.enabled && this.deps.processes.state(plugin.id).state === "running")
      .flatMap((plugin) => plugin.manifest.tools.map((tool) => ({ pluginId: plugin.id, tool })));
  }

  /** Reads the source again and says what updating would change; the plan is applied by its id within 10 minutes. */
  async planUpdate(id: string): Promise<PluginUpdatePlan> {
    const plugin = this.stored(id);
    return this.deps.installer.inspect(plugin.source, (found) => {
      checkSameId(id, found.manifest);
      if (found.consentKey === plugin.consentKey) throw new ConflictError(`plugin ${id} is up to date (${plugin.manifest.version})`);
      const planId = newId("plan");
      const expiresAtMs = this.deps.clock.now() + PLAN_LIFETIME_MS;
      this.plans.set(planId, { pluginId: id, consentKey: found.consentKey, expiresAtMs });
      return {
        planId,
        fromVersion: plugin.manifest.version,
        toVersion: found.manifest.version,
        consentKey: found.consentKey,
        changes: consentChanges({ manifest: plugin.manifest, commit: plugin.sourceCommit }, found),
        expiresAt: new Date(expiresAtMs).toISOString(),
      };
    });
  }

  /** Installs the planned version beside the current one, which is kept to restore; 409 for an unknown, spent or stale plan. */
  async applyUpdate(id: string, planId: string): Promise<Plugin> {
    const plugin = this.stored(id);
    const plan = this.plans.get(planId);
    if (!plan || plan.pluginId !== id || plan.expiresAtMs <= this.deps.clock.now()) {
      throw new ConflictError(`no update plan ${planId} for plugin ${id}: it was applied, expired (10 minutes) or never made; plan again`);
    }
    this.plans.delete(planId);
    const version = await this.deps.installer.install(plugin.source, plan.consentKey, (manifest) => checkSameId(id, manifest));
    const current = { manifest: plugin.manifest, path: plugin.path, sourceCommit: plugin.sourceCommit, consentKey: plugin.consentKey };
    return this.replace(plugin, { ...plugin, ...version, previous: current, updatedAt: this.timestamp() }, plugin.previous?.path);
  }

  /** Goes back to the version before the last update; the newer one is removed. */
  restore(id: string): Plugin {
    const plugin = this.stored(id);
    if (!plugin.previous) throw new ConflictError(`plugin ${id} has no earlier version to restore`);
    return this.replace(plugin, { ...plugin, ...plugin.previous, previous: null, updatedAt: this.timestamp() }, plugin.path);
  }

  /** Starts the enabled plugins (the server's start). */
  startAll(): void {
    for (const plugin of this.deps.repository.list()) if (plugin.enabled) this.launch(plugin);
  }

  /** Publishes a plugin's state (its process changed state, a pane opened or closed). */
  publishInBackground(id: string): void {
    try {
      this.deps.store.transaction(() => this.publish(id));
    } catch (error) {
      this.deps.logger.warn("could not record a plugin's state", { pluginId: id, error: (error as Error).message });
    }
  }

  private replace(before: StoredPlugin, after: StoredPlugin, removedPath: string | undefined): Plugin {
    this.deps.processes.stop(before.id);
    this.deps.store.transaction(() => {
      this.deps.repository.save(after);
      this.publish(after.id);
    });
    if (removedPath && removedPath !== after.path) removeVersion(removedPath);
    if (after.enabled) this.launch(after);
    return this.get(after.id);
  }

  private launch(plugin: StoredPlugin): void {
    this.deps.processes.start({ id: plugin.id, folder: plugin.path, runCommand: plugin.manifest.runCommand });
  }

  /** Runs on every request a pane's web view makes: the row is read only to say why there is no port. */
  private runningPort(id: string): number {
    const { state, lastError, port } = this.deps.processes.state(id);
    if (state === "running" && port !== null) return port;
    const why = !this.stored(id).enabled ? "disabled" : state === "failed" ? `failed (${lastError})` : state;
    throw new UpstreamError(`plugin ${id} is ${why}: restart it with POST /v1/plugins/${id}/restart or \`atrium plugin restart ${id}\``);
  }

  private publish(id: string): void {
    const plugin = this.deps.repository.get(id);
    if (plugin) this.deps.events.append("plugin.updated", id, { plugin: this.view(plugin) });
  }

  private stored(id: string): StoredPlugin {
    const plugin = this.deps.repository.get(id);
    if (!plugin) throw new NotFoundError(`no plugin ${id}`);
    return plugin;
  }

  private view(plugin: StoredPlugin): Plugin {
    const { manifest } = plugin;
    const process = this.deps.processes.state(plugin.id);
    return {
      ...shownFields(manifest, plugin.consentKey, plugin.source),
      enabled: plugin.enabled,
      canRestore: plugin.previous !== null,
      source: "managed",
      path: plugin.path,
      state: plugin.enabled ? process.state : "stopped",
      openPaneCount: this.deps.panes.count(plugin.id),
      lastError: process.lastError,
      sourceCommit: plugin.sourceCommit,
      installedAt: plugin.installedAt,
      updatedAt: plugin.updatedAt,
    };
  }

  private timestamp(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}

/** An update's source must still hold the same plugin. */
function checkSameId(id: string, manifest: PluginManifest): void {
  if (manifest.id !== id) throw new ConflictError(`the source now holds plugin ${manifest.id}, not ${id}`);
}

/** What a plugin and its discovery both show of a manifest. */
function shownFields(manifest: PluginManifest, consentKey: string, sourceRepo: string) {
  const { ageRating, id, name, version, description, iconPath, panes, tools } = manifest;
  return { ageRating, consentKey, sourceRepo, id, name, version, description, iconPath, panes, tools };
}
