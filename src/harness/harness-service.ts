import { homedir } from "node:os";
import type { Static } from "@sinclair/typebox";
import type { Store } from "../store/database.ts";
import type { HarnessSettingsRepository } from "../store/harness-settings-repository.ts";
import type { HarnessEvents } from "../schemas/harnesses.ts";
import type { EventLog } from "../events/event-log.ts";
import type { Harness, HarnessAccount, InstallMethod } from "../schemas/harnesses.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import type { Logger } from "../logging/logger.ts";
import { runCommand } from "../process/run-command.ts";
import type { TerminalLogs } from "./terminal-logs.ts";
import { readUsageLimits, type AccountSpec } from "./usage-limits.ts";
import type { UsageLimits } from "../schemas/sessions.ts";
import type { HarnessDefinition } from "./harness-definition.ts";
import type { InstalledHarness } from "./harness-user-files.ts";
import { detectReadiness, findOnPath, initialReadiness, probeAuth, type DetectionEnvironment } from "./detection.ts";
import type { AccountProfile, HarnessAccounts } from "./harness-accounts.ts";
import type { LatestVersions } from "./latest-versions.ts";
import { harnessView, loginInstruction, type AuthView, type HarnessState } from "./harness-view.ts";

type Lifecycle = Harness["lifecycle"];

type ToolKind = "npm" | "brew";

/**
 * The install methods Atrium knows: which tool, what it installs for a harness (the CLI and its ACP
 * adapter together, so a session can start afterwards), and how.
 */
const INSTALL_TOOLS: Array<{ kind: ToolKind; label: string; targets: (definition: HarnessDefinition) => string[] }> = [
  { kind: "npm", label: "npm (global)", targets: (definition) => [definition.npmPackage, definition.adapter?.npmPackage].filter((name) => name !== undefined) },
  { kind: "brew", label: "Homebrew", targets: (definition) => (definition.brewFormula && !definition.adapter ? [definition.brewFormula] : []) },
];

/** The command line of an install or update, after the tool itself. */
function operationArgs(kind: ToolKind, targets: string[], phase: "installing" | "updating"): string[] {
  if (kind === "npm") return ["install", "-g", ...(phase === "updating" ? targets.map((target) => `${target}@latest`) : targets)];
  return [phase === "updating" ? "upgrade" : "install", ...targets];
}

const IDLE: Lifecycle = { phase: "idle", targetVersion: null, methodId: null, terminalId: null, error: null, startedAt: null };
/** An install or update that takes longer than this is stopped and reported as failed. */
const OPERATION_TIMEOUT_MS = 15 * 60_000;

export interface HarnessServiceDeps {
  definitions: HarnessDefinition[];
  store: Store;
  settings: HarnessSettingsRepository;
  accounts: HarnessAccounts;
  events: EventLog<typeof HarnessEvents>;
  environment: DetectionEnvironment;
  terminals: TerminalLogs;
  logger: Logger;
  /** Absent: the latest versions are not looked up (config `harnessUpdateCheck: false`). */
  latestVersions?: LatestVersions;
  now?: () => Date;
}

/**
 * The harnesses and what is known of them. Reads answer from the cached state at once; a rescan runs
 * every harness's probes in parallel, each under the time limit, and appends `harness.updated` for
 * each harness whose settled state changed.
 */
export class HarnessService {
  private readonly states = new Map<string, HarnessState>();
  /** The last state published as an event, per harness, to publish only changes. */
  private readonly published = new Map<string, string>();
  private scanning: Promise<Harness[]> | undefined;
  private refreshing: Promise<Harness[]> | undefined;
  /** Where the install tools are; looked up when harnesses are detected, not on every read. */
  private tools: Record<ToolKind, string | undefined>;
  private readonly now: () => Date;
  /** Set at shutdown: work still finishing in the background must not touch the closed store. */
  private closed = false;
  /** Counts changes to anything a harness view shows; the kept list JSON is of one revision. */
  private revision = 0;
  private listed: { revision: number; json: Uint8Array<ArrayBuffer> } | undefined;

  constructor(private readonly deps: HarnessServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.tools = this.findTools();
    for (const definition of deps.definitions) {
      this.states.set(definition.id, {
        readiness: initialReadiness(definition, deps.environment.env),
        auth: new Map(),
        checkedAt: null,
        lifecycle: IDLE,
      });
    }
  }

  /** Every harness; latest versions that have expired are looked up in the background (on demand). */
  list(): Harness[] {
    this.refreshLatestVersions();
    return this.views();
  }

  /**
   * `list()` as the JSON (UTF-8) the route answers with, kept until something about a harness changes: the list
   * is read far more often than it changes, and building it (settings, accounts, eight views) cost
   * most of a request.
   */
  listJson(): Uint8Array<ArrayBuffer> {
    this.refreshLatestVersions();
    if (this.listed?.revision !== this.revision) this.listed = { revision: this.revision, json: new TextEncoder().encode(JSON.stringify(this.views())) };
    return this.listed.json;
  }

  get(id: string): Harness {
    this.refreshLatestVersions();
    return this.view(id);
  }

  /**
   * Re-detects every harness (executable, version, login). Concurrent calls share one scan. The
   * latest versions are looked up afterwards, in the background, so an offline registry never slows
   * a scan down.
   */
  rescan(): Promise<Harness[]> {
    return this.detect().then((harnesses) => {
      this.refreshLatestVersions();
      return harnesses;
    });
  }

  /** Re-detects every harness, and nothing more: the server's start runs no registry look-up. */
  detect(): Promise<Harness[]> {
    this.scanning ??= this.scanAll(true).finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  /** Re-reads the login state of every ready harness, keeping what detection knew. Shared like rescan. */
  refreshAuth(): Promise<Harness[]> {
    this.refreshing ??= this.scanAll(false).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /**
   * The harness being updated right now, or null (also for an id no longer declared): sessions hold
   * new turns meanwhile.
   */
  updateGate(id: string): { harnessId: string; harnessName: string } | null {
    const definition = this.deps.definitions.find((candidate) => candidate.id === id);
    if (!definition || this.states.get(id)!.lifecycle.phase !== "updating") return null;
    return { harnessId: id, harnessName: definition.name };
  }

  /** Stops publishing; probes and operations still running end on their own time limits. */
  close(): void {
    this.closed = true;
  }

  /** Re-reads one harness's logins, e.g. after Atrium itself wrote one of its credentials. */
  recheckAuth(id: string): Promise<void> {
    const definition = this.definition(id);
    return this.recheck(definition, this.deps.accounts.profiles(definition));
  }

  setEnabled(id: string, enabled: boolean | null): Harness {
    this.definition(id);
    return this.deps.store.transaction(() => {
      this.deps.settings.set(id, enabled);
      this.changed();
      return this.publishIfChanged(this.view(id));
    });
  }

  /** Adds an account with a config home of its own; its login is checked in the background. */
  addAccount(id: string, label: string | null | undefined): HarnessAccount {
    const definition = this.definition(id);
    this.requireInstalled(definition);
    const profile = this.deps.accounts.add(definition, label);
    this.changed();
    this.deps.store.transaction(() => this.publishIfChanged(this.view(id)));
    void this.recheck(definition, [profile]).catch((error: unknown) =>
      this.deps.logger.error("checking a new account's login failed", { harnessId: id, error }),
    );
    return this.account(id, profile.id);
  }

  updateAccount(id: string, accountId: string, label: string | null | undefined): HarnessAccount {
    const definition = this.definition(id);
    this.requireInstalled(definition);
    this.deps.store.transaction(() => {
      if (label !== undefined) this.deps.accounts.setLabel(definition, accountId, label);
      else this.deps.accounts.profile(definition, accountId);
      this.changed();
      this.publishIfChanged(this.view(id));
    });
    return this.account(id, accountId);
  }

  activateAccount(id: string, accountId: string): Harness {
    const definition = this.definition(id);
    return this.deps.store.transaction(() => {
      this.deps.accounts.activate(definition, accountId);
      this.changed();
      return this.publishIfChanged(this.view(id));
    });
  }

  removeAccount(id: string, accountId: string): Harness {
    const definition = this.definition(id);
    return this.deps.store.transaction(() => {
      this.deps.accounts.remove(definition, accountId);
      this.states.get(id)!.auth.delete(accountId);
      this.changed();
      return this.publishIfChanged(this.view(id));
    });
  }

  /**
   * The harnesses whose CLI is on this machine, each with its active account's environment: where
   * their user files are (harness-user-files.ts). No folder is made for a CLI that is not there.
   */
  installed(): InstalledHarness[] {
    return this.deps.definitions.flatMap((definition) => {
      if (!this.states.get(definition.id)?.readiness.path) return [];
      const { env } = this.launchSpec(definition.id);
      return [{ definition, context: { env, home: env.HOME ?? homedir() } }];
    });
  }

  /**
   * How a session starts this harness: the ACP command and the environment of the account (the active
   * one unless named), over the service's own environment.
   */
  launchSpec(id: string, accountId?: string | null): AccountSpec {
    const definition = this.definition(id);
    const profile = this.deps.accounts.profile(definition, accountId ?? this.deps.accounts.activeId(definition));
    const env = this.accountEnv(definition, profile);
    const executablePath = this.states.get(id)?.readiness.path;
    return {
      definition,
      accountId: profile.id,
      accountLabel: profile.label,
      env: executablePath && definition.launchEnv ? { ...env, ...definition.launchEnv({ env, executablePath }) } : env,
      loginInstruction: loginInstruction(definition, profile),
    };
  }

  /** The account's rate limits, where the harness keeps them. */
  usageLimits(id: string, accountId?: string | null): UsageLimits {
    return readUsageLimits(this.launchSpec(id, accountId), this.now());
  }
  /**
   * Installs (or updates) a harness with one of its install methods, in the background: the answer is
   * the harness in phase installing/updating; the output goes to a terminal log; afterwards the
   * harness is detected again. One operation per harness at a time.
   */
  startOperation(id: string, phase: "installing" | "updating", methodId: string | null | undefined): Harness {
    const definition = this.definition(id);
    const state = this.states.get(id)!;
    if (state.lifecycle.phase === "installing" || state.lifecycle.phase === "updating") {
      throw new ConflictError(`${definition.name} is already ${state.lifecycle.phase}; wait for it to finish`);
    }
    if (phase === "updating" && state.readiness.state === "missing") {
      throw new ConflictError(`${definition.name} is not installed; install it first`);
    }
    const methods = this.installMethods(definition);
    if (methods.length === 0) throw new InvalidInputError(`Atrium cannot install ${definition.name}: ${definition.installHint}`);
    const method = methodId ? methods.find((candidate) => candidate.id === methodId) : methods.find((candidate) => candidate.recommended);
    if (!method) {
      throw new InvalidInputError(`${definition.name} has no install method "${methodId}"; it has ${methods.map((m) => m.id).join(", ")}`);
    }
    // Looked up afresh: the tool may have been installed since the last scan.
    const tool = findOnPath(method.kind, this.deps.environment.env);
    if (!tool) throw new ConflictError(`${method.kind} is not on the service's PATH, so ${definition.name} cannot be installed with it`);
    const args = operationArgs(method.kind, INSTALL_TOOLS.find((entry) => entry.kind === method.kind)!.targets(definition), phase);
    const terminal = this.deps.terminals.open(id, [method.kind, ...args].join(" "));
    const command = [tool, ...args];
    this.changed();
    state.lifecycle = {
      phase,
      targetVersion: null,
      methodId: method.id,
      terminalId: terminal.id,
      error: null,
      startedAt: this.now().toISOString(),
    };
    const harness = this.deps.store.transaction(() => this.publishIfChanged(this.view(id)));
    void this.runOperation(definition, command, terminal).catch((error: unknown) =>
      this.deps.logger.error("a harness install or update could not finish", { harnessId: id, error }),
    );
    return harness;
  }

  private async runOperation(definition: HarnessDefinition, command: string[], terminal: ReturnType<TerminalLogs["open"]>): Promise<void> {
    const result = await runCommand(command, {
      env: this.deps.environment.env,
      timeoutMs: OPERATION_TIMEOUT_MS,
      onStdoutLine: terminal.write,
      onStderrLine: terminal.write,
    });
    terminal.finish(result.code);
    await this.scan(definition, true);
    const state = this.states.get(definition.id)!;
    const error = result.timedOut
      ? `the command took longer than ${OPERATION_TIMEOUT_MS / 60_000} minutes and was stopped`
      : result.code !== 0
        ? `the command exited with ${result.code}; its output is in terminal ${terminal.id}`
        : null;
    // The terminal and method stay readable after the operation, so a client can show what happened.
    this.changed();
    state.lifecycle = { ...state.lifecycle, phase: error ? "failed" : "idle", error };
    this.changed();
    if (this.closed) return;
    this.deps.store.transaction(() => this.publishIfChanged(this.view(definition.id)));
  }

  private async scan(definition: HarnessDefinition, detect: boolean): Promise<void> {
    const state = this.states.get(definition.id)!;
    const profiles = this.deps.accounts.profiles(definition);
    for (const profile of profiles) state.auth.set(profile.id, { state: "checking" });
    this.changed();
    if (detect) state.readiness = await detectReadiness(definition, this.deps.environment, state.readiness);
    this.changed();
    await this.probeAccounts(definition, profiles);
  }

  /** Reads the login of each account, in parallel, each with its own config home. */
  private async probeAccounts(definition: HarnessDefinition, profiles: AccountProfile[]): Promise<void> {
    const state = this.states.get(definition.id)!;
    const { readiness } = state;
    await Promise.all(
      profiles.map(async (profile) => {
        const environment = { ...this.deps.environment, env: this.accountEnv(definition, profile) };
        const auth: AuthView =
          readiness.state === "ready" && readiness.path
            ? await probeAuth(definition, readiness.path, environment)
            : { state: "unknown", detail: `${definition.name} is not ready` };
        state.auth.set(profile.id, auth);
        this.changed();
      }),
    );
    state.checkedAt = this.now().toISOString();
    this.changed();
  }

  private async recheck(definition: HarnessDefinition, profiles: AccountProfile[]): Promise<void> {
    await this.probeAccounts(definition, profiles);
    if (this.closed) return;
    this.deps.store.transaction(() => this.publishIfChanged(this.view(definition.id)));
  }

  private async scanAll(detect: boolean): Promise<Harness[]> {
    // A scan asked for after shutdown began would start probes nothing stops any more.
    if (this.closed) return [];
    if (detect) this.tools = this.findTools();
    await Promise.all(this.deps.definitions.map((definition) => this.scan(definition, detect)));
    if (this.closed) return [];
    return this.deps.store.transaction(() => this.views().map((harness) => this.publishIfChanged(harness)));
  }

  /** Looks up, in the background, each npm-published harness's latest version whose kept answer expired. */
  private refreshLatestVersions(): void {
    const latest = this.deps.latestVersions;
    if (!latest || this.closed) return;
    for (const definition of this.deps.definitions) {
      const npmPackage = definition.npmPackage;
      if (!npmPackage || !latest.isStale(npmPackage)) continue;
      void latest
        .check(npmPackage)
        .then(() => {
          this.changed();
          if (!this.closed) this.deps.store.transaction(() => this.publishIfChanged(this.view(definition.id)));
        })
        .catch((error: unknown) => this.deps.logger.error("looking up a harness's latest version failed", { harnessId: definition.id, error }));
    }
  }

  private publishIfChanged(harness: Harness): Harness {
    if (this.closed) return harness;
    // When it was last checked is not a change of state; leave it out of the comparison.
    const snapshot = JSON.stringify(harness, (key, value: unknown) => (key === "lastCheckedAt" ? undefined : value));
    if (harness.auth.state !== "checking" && this.published.get(harness.id) !== snapshot) {
      this.published.set(harness.id, snapshot);
      this.deps.events.append("harness.updated", harness.id, { harness });
    }
    return harness;
  }

  /** Something a harness view shows changed (state, settings, accounts, latest versions). */
  private changed(): void {
    this.revision++;
  }

  private views(): Harness[] {
    const settings = this.deps.settings.all();
    return this.deps.definitions.map((definition) => this.toHarness(definition, settings));
  }

  private view(id: string): Harness {
    return this.toHarness(this.definition(id), this.deps.settings.all());
  }

  private definition(id: string): HarnessDefinition {
    const definition = this.deps.definitions.find((candidate) => candidate.id === id);
    if (!definition) throw new NotFoundError(`no harness has id ${id}`);
    return definition;
  }

  private findTools(): Record<ToolKind, string | undefined> {
    const env = this.deps.environment.env;
    return { npm: findOnPath("npm", env), brew: findOnPath("brew", env) };
  }

  private installMethods(definition: HarnessDefinition): Static<typeof InstallMethod>[] {
    const methods = INSTALL_TOOLS.flatMap(({ kind, label, targets }) => {
      const what = targets(definition);
      if (what.length === 0) return [];
      const command = [kind, ...operationArgs(kind, what, "installing")].join(" ");
      return [{ id: kind, kind, label, command, available: this.tools[kind] !== undefined, recommended: false }];
    });
    // One recommendation per harness: the first method whose tool is there, else the first at all.
    const recommended = methods.find((method) => method.available) ?? methods[0];
    if (recommended) recommended.recommended = true;
    return methods;
  }

  /** The service's environment with the account's config home over it. */
  private accountEnv(definition: HarnessDefinition, profile: AccountProfile): Record<string, string | undefined> {
    return { ...this.deps.environment.env, ...this.deps.accounts.environment(definition, profile) };
  }

  private requireInstalled(definition: HarnessDefinition): void {
    if (this.states.get(definition.id)!.readiness.state !== "ready") {
      throw new ConflictError(`${definition.name} is not installed, so its accounts cannot be changed`);
    }
  }

  private account(id: string, accountId: string): HarnessAccount {
    const account = this.view(id).auth.accounts.find((candidate) => candidate.id === accountId);
    if (!account) throw new NotFoundError(`${id} has no account ${accountId}`);
    return account;
  }

  private toHarness(definition: HarnessDefinition, settings: Map<string, boolean>): Harness {
    return harnessView({
      definition,
      state: this.states.get(definition.id)!,
      profiles: this.deps.accounts.profiles(definition),
      activeAccountId: this.deps.accounts.activeId(definition),
      override: settings.get(definition.id),
      installMethods: this.installMethods(definition),
      latest: definition.npmPackage ? this.deps.latestVersions?.cached(definition.npmPackage) : undefined,
    });
  }
}
