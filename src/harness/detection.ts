import { readFileSync } from "node:fs";
import { runCommand } from "../process/run-command.ts";
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
}

export function findOnPath(command: string, env: Record<string, string | undefined>): string | undefined {
  return Bun.which(command, { PATH: env.PATH ?? "" }) ?? undefined;
}

/** Finds the executable on the service's PATH and asks it for its version, within the time limit. */
export async function detectReadiness(definition: HarnessDefinition, environment: DetectionEnvironment): Promise<Readiness> {
  if (definition.launchKind === "builtin") {
    return { state: "ready", detail: null, path: definition.executable, version: environment.atriumVersion };
  }
  const path = findOnPath(definition.executable, environment.env);
  if (!path) {
    return { state: "missing", detail: `${definition.executable} is not on the service's PATH`, path: null, version: null };
  }
  const result = await runCommand([path, ...definition.versionArgs], { env: environment.env, timeoutMs: environment.timeoutMs });
  if (result.timedOut) {
    return { state: "error", detail: `${definition.executable} ${definition.versionArgs.join(" ")} did not answer within ${environment.timeoutMs} ms`, path, version: null };
  }
  if (result.code !== 0) {
    const said = (result.stderr || result.stdout).trim().split("\n")[0] ?? "";
    return { state: "error", detail: `${definition.executable} ${definition.versionArgs.join(" ")} exited with ${result.code}${said ? `: ${said}` : ""}`, path, version: null };
  }
  const version = parseVersion(result.stdout) ?? parseVersion(result.stderr);
  if (!version) return { state: "error", detail: `${definition.executable} printed no version`, path, version: null };
  return { state: "ready", detail: null, path, version };
}

function readJson(path: string): unknown {
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
    run: (args) => runCommand([executablePath, ...args], { env: environment.env, timeoutMs: environment.timeoutMs }),
    readJson,
  };
  try {
    return await definition.probeAuth(context);
  } catch (error) {
    return { state: "unknown", detail: `the login check failed: ${(error as Error).message}` };
  }
}
