import type { Static } from "@sinclair/typebox";
import type { Store } from "../store/database.ts";
import type { HarnessSettingsRepository } from "../store/harness-settings-repository.ts";
import type { EventLog } from "../events/event-log.ts";
import type { Harness, HarnessAccount, InstallMethod } from "../schemas/harnesses.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import type { Logger } from "../logging/logger.ts";
import { runCommand } from "../process/run-command.ts";
import type { TerminalLogs } from "./terminal-logs.ts";
import type { AuthProbe, HarnessDefinition } from "./harness-definition.ts";
import { detectReadiness, findOnPath, probeAuth, type DetectionEnvironment, type Readiness } from "./detection.ts";

type Lifecycle = Harness["lifecycle"];

/** What a probe learned, or `checking` while one runs; one shape, so readers need no narrowing. */
type AuthView = Omit<AuthProbe, "state"> & { state: AuthProbe["state"] | "checking" };

interface HarnessState {
  readiness: Readiness;
  auth: AuthView;
  checkedAt: string | null;
  lifecycle: Lifecycle;
}

type ToolKind = "npm" | "brew";

/** The install methods Atrium knows: which tool, what it installs for a harness, and how. */
const INSTALL_TOOLS: Array<{ kind: ToolKind; label: string; target: (definition: HarnessDefinition) => string | undefined }> = [
  { kind: "npm", label: "npm (global)", target: (definition) => definition.npmPackage },
  { kind: "brew", label: "Homebrew", target: (definition) => definition.brewFormula },
];

/** The command line of an install or update, after the tool itself. */
function operationArgs(kind: ToolKind, target: string, phase: "installing" | "updating"): string[] {
  if (kind === "npm") return ["install", "-g", phase === "updating" ? `${target}@latest` : target];
  return [phase === "updating" ? "upgrade" : "install", target];
}

const IDLE: Lifecycle = { phase: "idle", targetVersion: null, methodId: null, terminalId: null, error: null, startedAt: null };
/** An install or update that takes longer than this is stopped and reported as failed. */
const OPERATION_TIMEOUT_MS = 15 * 60_000;

export interface HarnessServiceDeps {
  definitions: HarnessDefinition[];
  store: Store;
  settings: HarnessSettingsRepository;
  events: EventLog;
  environment: DetectionEnvironment;
  terminals: TerminalLogs;
  logger: Logger;
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
  /** Where the install tools are; looked up when harnesses are detected, not on every read. */
  private tools: Record<ToolKind, string | undefined>;
  private readonly now: () => Date;

  constructor(private readonly deps: HarnessServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.tools = this.findTools();
    for (const definition of deps.definitions) {
      // Before the first scan: where the executable is, not yet what it says.
      const path = definition.launchKind === "builtin" ? definition.executable : findOnPath(definition.executable, deps.environment.env);
      this.states.set(definition.id, {
        readiness: path
          ? { state: "ready", detail: "not checked yet", path, version: null }
          : { state: "missing", detail: `${definition.executable} is not on the service's PATH`, path: null, version: null },
        auth: { state: "checking" },
        checkedAt: null,
        lifecycle: IDLE,
      });
    }
  }

  list(): Harness[] {
    const settings = this.deps.settings.all();
    return this.deps.definitions.map((definition) => this.toHarness(definition, settings));
  }

  get(id: string): Harness {
    const definition = this.definition(id);
    return this.toHarness(definition, this.deps.settings.all());
  }

  /** Re-detects every harness (executable, version, login). Concurrent calls share one scan. */
  rescan(): Promise<Harness[]> {
    this.scanning ??= this.scanAll(true).finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  /** Re-reads the login state of every ready harness, keeping what detection knew. */
  refreshAuth(): Promise<Harness[]> {
    return this.scanAll(false);
  }

  setEnabled(id: string, enabled: boolean | null): Harness {
    this.definition(id);
    return this.deps.store.transaction(() => {
      this.deps.settings.set(id, enabled);
      return this.publishIfChanged(this.get(id));
    });
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
    const args = operationArgs(method.kind, INSTALL_TOOLS.find((entry) => entry.kind === method.kind)!.target(definition)!, phase);
    const terminal = this.deps.terminals.open(id, [method.kind, ...args].join(" "));
    const command = [tool, ...args];
    state.lifecycle = {
      phase,
      targetVersion: null,
      methodId: method.id,
      terminalId: terminal.id,
      error: null,
      startedAt: this.now().toISOString(),
    };
    const harness = this.deps.store.transaction(() => this.publishIfChanged(this.get(id)));
    void this.runOperation(definition, command, terminal).catch((error: unknown) =>
      this.deps.logger.error("a harness install or update could not finish", { harnessId: id, error }),
    );
    return harness;
  }

  private async runOperation(
    definition: HarnessDefinition,
    command: string[],
    terminal: ReturnType<TerminalLogs["open"]>,
  ): Promise<void> {
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
    state.lifecycle = { ...state.lifecycle, phase: error ? "failed" : "idle", error };
    this.deps.store.transaction(() => this.publishIfChanged(this.get(definition.id)));
  }

  private async scan(definition: HarnessDefinition, detect: boolean): Promise<void> {
    const previous = this.states.get(definition.id)!;
    this.states.set(definition.id, { ...previous, auth: { state: "checking" } });
    const readiness = detect ? await detectReadiness(definition, this.deps.environment) : previous.readiness;
    const auth =
      readiness.state === "ready" && readiness.path
        ? await probeAuth(definition, readiness.path, this.deps.environment)
        : ({ state: "unknown", detail: `${definition.name} is not ready` } satisfies AuthProbe);
    const current = this.states.get(definition.id)!;
    this.states.set(definition.id, { ...current, readiness, auth, checkedAt: this.now().toISOString() });
  }

  private async scanAll(detect: boolean): Promise<Harness[]> {
    if (detect) this.tools = this.findTools();
    await Promise.all(this.deps.definitions.map((definition) => this.scan(definition, detect)));
    return this.deps.store.transaction(() => this.list().map((harness) => this.publishIfChanged(harness)));
  }

  private publishIfChanged(harness: Harness): Harness {
    // When it was last checked is not a change of state; leave it out of the comparison.
    const snapshot = JSON.stringify(harness, (key, value: unknown) => (key === "lastCheckedAt" ? undefined : value));
    if (harness.auth.state !== "checking" && this.published.get(harness.id) !== snapshot) {
      this.published.set(harness.id, snapshot);
      this.deps.events.append("harness.updated", harness.id, { harness });
    }
    return harness;
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
    const methods = INSTALL_TOOLS.flatMap(({ kind, label, target }) => {
      const what = target(definition);
      if (!what) return [];
      const command = [kind, ...operationArgs(kind, what, "installing")].join(" ");
      return [{ id: kind, kind, label, command, available: this.tools[kind] !== undefined, recommended: false }];
    });
    // One recommendation per harness: the first method whose tool is there, else the first at all.
    const recommended = methods.find((method) => method.available) ?? methods[0];
    if (recommended) recommended.recommended = true;
    return methods;
  }

  private toHarness(definition: HarnessDefinition, settings: Map<string, boolean>): Harness {
    const state = this.states.get(definition.id)!;
    const { readiness, auth } = state;
    const installed = readiness.state === "ready";
    const override = settings.get(definition.id);
    const desiredEnabled = override ?? true;
    const account: HarnessAccount | undefined =
      installed && auth.state !== "checking"
        ? {
            id: `${definition.id}:default`,
            harnessId: definition.id,
            profileKind: "default",
            label: "Default",
            email: auth.email ?? null,
            organizationId: auth.organizationId ?? null,
            authMethod: auth.authMethod ?? null,
            authState: auth.state,
            isActive: true,
            selectionScope: "shared",
            canLogin: false,
            canLogout: false,
            lastCheckedAt: state.checkedAt,
            detail: auth.detail ?? null,
          }
        : undefined;
    return {
      id: definition.id,
      name: definition.name,
      symbolName: definition.symbolName,
      source: definition.source,
      launchKind: definition.launchKind,
      enabled: desiredEnabled && installed,
      desiredEnabled,
      settings: {
        global: { enabled: true, installed },
        override: override === undefined ? null : { enabled: override, installed },
      },
      readiness: { state: readiness.state, detail: readiness.detail, path: readiness.path, version: readiness.version },
      auth: {
        state: auth.state,
        activeAccountId: account?.id ?? null,
        accounts: account ? [account] : [],
        loginMethods: definition.loginMethods,
        supportsMultipleAccounts: definition.supportsMultipleAccounts,
        detail: auth.detail ?? null,
      },
      installHint: definition.installHint,
      installMethods: this.installMethods(definition),
      updateInfo: {
        installedVersion: readiness.version,
        latestVersion: null,
        updateAvailable: false,
        source: definition.npmPackage ? `npm:${definition.npmPackage}` : null,
        installOrigin: null,
        channel: null,
        checkedAt: null,
        notes: "the latest version has not been checked",
      },
      lifecycle: state.lifecycle,
    };
  }
}
