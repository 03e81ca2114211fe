import { readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { runCommand } from "../process/run-command.ts";
import type { ChildProcesses } from "../process/child-processes.ts";
import { parseVersion, type AuthProbe, type HarnessDefinition, type ProbeContext } from "./harness-definition.ts";

export interface Readiness {
  state: "ready" | "missing" | "error";
  detail: string | null;
  path: string | null;
  version: string | null;
}

export interface DetectionEnvironment {
  env: Record<string, string | undefined>;
  home: string;
  /** Every command a probe runs is cut off after this long. */
  timeoutMs: number;
  /** The Atrium version, for built-in harnesses. */
  atriumVersion: string;
  /** Where probes are recorded while they run, so shutdown stops them at once. */
  children?: ChildProcesses;
}

export function findOnPath(command: string, env: Record<string, string | undefined>): string | undefined {
  return Bun.which(command, { PATH: env.PATH ?? "" }) ?? undefined;
}

/** What one executable of a harness (the CLI, or its ACP adapter) was found to be. */
interface ComponentProbe {
  path: string;
  version: string | null;
  /** Set when the version could not be read; `fatal` when the executable is broken, not just slow. */
  problem?: { detail: string; fatal: boolean };
}

/** Before the first scan: where the executables are, not yet what they say. */
export function initialReadiness(definition: HarnessDefinition, env: Record<string, string | undefined>): Readiness {
  if (definition.launchKind === "builtin") return { state: "ready", detail: "not checked yet", path: definition.executable, version: null };
  const path = findOnPath(definition.executable, env) ?? null;
  const adapterFound = !definition.adapter || findOnPath(definition.adapter.executable, env) !== undefined;
  if (path && adapterFound) return { state: "ready", detail: "not checked yet", path, version: null };
  return { state: "missing", detail: "not checked yet", path, version: null };
}

/**
 * Finds the harness's executable (and its ACP adapter, when it has one) on the service's PATH and
 * reads their versions. Ready means a session can start: both are there. A version probe that is
 * only slow keeps the harness ready (with the version known before, if any).
 */
export async function detectReadiness(definition: HarnessDefinition, environment: DetectionEnvironment, previous?: Readiness): Promise<Readiness> {
  if (definition.launchKind === "builtin") {
    return { state: "ready", detail: null, path: definition.executable, version: environment.atriumVersion };
  }
  const cliPath = findOnPath(definition.executable, environment.env);
  const adapterPath = definition.adapter ? findOnPath(definition.adapter.executable, environment.env) : undefined;
  const missing = [
    cliPath ? undefined : `${definition.executable} is not on the service's PATH`,
    definition.adapter && !adapterPath
      ? `its ACP adapter ${definition.adapter.executable} (npm ${definition.adapter.npmPackage}) is not on the service's PATH`
      : undefined,
  ].filter((part) => part !== undefined);
  if (!cliPath) return { state: "missing", detail: missing.join("; "), path: null, version: null };
  const [cli, adapter] = await Promise.all([
    probeComponent(cliPath, definition.executable, definition.versionArgs, environment),
    adapterPath ? probeComponent(adapterPath, definition.adapter!.executable, [], environment) : undefined,
  ]);
  const version = cli.version ?? (previous?.path === cliPath ? previous.version : null);
  if (missing.length > 0) return { state: "missing", detail: missing.join("; "), path: cliPath, version };
  const fatal = [cli, adapter].find((part) => part?.problem?.fatal);
  if (fatal) return { state: "error", detail: fatal.problem!.detail, path: cliPath, version };
  const notes = [
    cli.problem?.detail,
    adapter
      ? `ACP adapter ${definition.adapter!.executable} ${adapter.version ?? "(version unknown)"}${adapter.problem ? `: ${adapter.problem.detail}` : ""}`
      : undefined,
  ].filter((part) => part !== undefined);
  return { state: "ready", detail: notes.length > 0 ? notes.join("; ") : null, path: cliPath, version };
}

/**
 * The version of one executable: what `versionArgs` prints, else the version of the npm package it
 * belongs to (adapters start their ACP server when run, so they are never run to ask).
 */
async function probeComponent(path: string, name: string, versionArgs: string[], environment: DetectionEnvironment): Promise<ComponentProbe> {
  const packaged = () => packageVersion(path);
  if (versionArgs.length === 0) return { path, version: packaged() ?? null };
  const asked = `${name} ${versionArgs.join(" ")}`;
  const result = await runCommand([path, ...versionArgs], { env: environment.env, timeoutMs: environment.timeoutMs, children: environment.children });
  if (result.timedOut) {
    return { path, version: packaged() ?? null, problem: { detail: `${asked} did not answer within ${environment.timeoutMs} ms`, fatal: false } };
  }
  const version = parseVersion(result.stdout) ?? parseVersion(result.stderr) ?? packaged();
  if (version) return { path, version };
  if (result.code !== 0) {
    const said = (result.stderr || result.stdout).trim().split("\n")[0] ?? "";
    return { path, version: null, problem: { detail: `${asked} exited with ${result.code}${said ? `: ${said}` : ""}`, fatal: true } };
  }
  return { path, version: null, problem: { detail: `${asked} printed no version`, fatal: false } };
}

/**
 * The version of the npm package an executable comes from: the nearest package.json above the script
 * the executable links to, if that package declares the script as one of its `bin` entries.
 */
export function packageVersion(executablePath: string): string | undefined {
  let script: string;
  try {
    script = realpathSync(executablePath);
  } catch {
    return undefined;
  }
  let dir = dirname(script);
  for (let depth = 0; depth < 4; depth++) {
    const manifest = readJson(join(dir, "package.json")) as { version?: unknown; bin?: unknown } | undefined;
    if (manifest) {
      const bins = typeof manifest.bin === "string" ? [manifest.bin] : Object.values((manifest.bin ?? {}) as Record<string, unknown>);
      const declares = bins.some((bin) => typeof bin === "string" && resolve(dir, bin) === script);
      return declares && typeof manifest.version === "string" ? manifest.version : undefined;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** Parses a JSON file, or undefined when it is missing or not JSON. */
export function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

/** Asks the harness how it is logged in; a probe that fails is reported, never waited on forever. */
export async function probeAuth(definition: HarnessDefinition, executablePath: string, environment: DetectionEnvironment): Promise<AuthProbe> {
  const context: ProbeContext = {
    executablePath,
    env: environment.env,
    home: environment.home,
    run: (args) => runCommand([executablePath, ...args], { env: environment.env, timeoutMs: environment.timeoutMs, children: environment.children }),
    readJson,
  };
  try {
    return await definition.probeAuth(context);
  } catch (error) {
    return { state: "unknown", detail: `the login check failed: ${(error as Error).message}` };
  }
}
