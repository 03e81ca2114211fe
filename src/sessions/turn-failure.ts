import type { AgentProcess } from "./acp/agent-process.ts";
import { ACP_AUTH_REQUIRED, describeAgentError } from "./acp/agent-errors.ts";
import { cleanLine } from "./agent-notices.ts";

/** The agent could not be started or its session opened; keeps the agent's code (a sign-in it needs). */
export class AgentOpenError extends Error {
  readonly code: unknown;

  constructor(cause: unknown) {
    super(`the agent could not open the session: ${describeAgentError(cause)}`);
    this.code = (cause as { code?: unknown } | undefined)?.code;
  }
}

/** The turn was cancelled before its prompt reached the agent. */
export class TurnCancelled extends Error {}

/**
 * Why the agent crashed, when the error is its process ending (the connection closes a moment before
 * the exit is seen); undefined for an error the agent answered with, which needs no waiting.
 */
export async function crashOf(error: unknown, agent: AgentProcess | undefined): Promise<string | undefined> {
  if (!agent || typeof (error as { code?: unknown }).code === "number") return undefined;
  const exited = await Promise.race([agent.exited.then(() => true), Bun.sleep(500).then(() => false)]);
  if (!exited) return undefined;
  const said = cleanLine(agent.lastStderrLine());
  const how = agent.exitStatus();
  return `the agent stopped unexpectedly${how ? ` (${how})` : ""}${said ? `; it last logged: ${said}` : ""}`;
}

/** What a failed turn tells the user: the agent's reason; an agent that wants a sign-in says how. */
export function failureReason(error: unknown, harness: { harnessName: string; loginInstruction: string | null }): string {
  const message = describeAgentError(error);
  if ((error as { code?: unknown }).code !== ACP_AUTH_REQUIRED) return message;
  const how = harness.loginInstruction ? `; to sign in, ${harness.loginInstruction}` : "";
  return `${harness.harnessName} needs a sign-in (${message})${how}`;
}

/**
 * The work's outcome, unless the turn is aborted first; the work may then still fail later (the agent
 * was stopped under it), which is expected and not an unhandled rejection.
 */
export function outlasting<T>(work: Promise<T>, aborted: Promise<never>): Promise<T> {
  work.catch(() => undefined);
  return Promise.race([work, aborted]);
}
