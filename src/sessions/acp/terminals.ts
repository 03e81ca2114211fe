import { AcpRefusal } from "./acp-refusal.ts";
import type { ChildProcesses } from "../../process/child-processes.ts";
import type * as acp from "@agentclientprotocol/sdk";
import type { BackgroundTask } from "../../schemas/sessions.ts";
import { killGroup } from "../../process/run-command.ts";
import { newId } from "../../ids.ts";

/** Output kept per terminal when the agent sets no limit (the newest bytes are kept). */
const DEFAULT_OUTPUT_LIMIT_BYTES = 1024 * 1024;

export interface TerminalOutput {
  output: string;
  truncated: boolean;
  exitCode: number | null;
  signal: string | null;
}

interface Terminal {
  id: string;
  description: string;
  child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  output: Buffer;
  truncated: boolean;
  limitBytes: number;
  killed: boolean;
  toolCallId: string | null;
  /** Both pipes read to their end: the output is complete once the process exited. */
  drained: Promise<void>;
}

export interface TerminalsOptions {
  /** The environment commands start with (the agent's); a request's variables are laid over it. */
  env: Record<string, string | undefined>;
  /** Where a command runs when the request names no folder; a named one must pass `checkCwd`. */
  cwd: string;
  checkCwd: (path: string) => string;
  /** The list of tasks changed (one started, ended, or was released). */
  onChange: () => void;
  /** Where the commands are recorded while they run, so shutdown and the next start can stop them. */
  children: ChildProcesses;
}

/**
 * The agent's `terminal/*` requests: commands run in their own process groups, output kept up to a
 * limit, shown as the session's background tasks until the agent releases them.
 */
export class Terminals {
  private readonly terminals = new Map<string, Terminal>();

  constructor(private readonly options: TerminalsOptions) {}

  create(request: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    const cwd = request.cwd ? this.options.checkCwd(request.cwd) : this.options.cwd;
    const env = { ...this.options.env, ...Object.fromEntries((request.env ?? []).map((variable) => [variable.name, variable.value])) };
    const argv = [request.command, ...(request.args ?? [])];
    let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
    try {
      child = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
    } catch (error) {
      throw new AcpRefusal("internalError", `could not start ${request.command}: ${(error as Error).message}`);
    }
    this.options.children.track(child, argv);
    const terminal: Terminal = {
      id: newId("term"),
      description: argv.join(" "),
      child,
      output: Buffer.alloc(0),
      truncated: false,
      limitBytes: request.outputByteLimit ?? DEFAULT_OUTPUT_LIMIT_BYTES,
      killed: false,
      toolCallId: null,
      drained: Promise.resolve(),
    };
    terminal.drained = Promise.all([this.collect(terminal, child.stdout), this.collect(terminal, child.stderr)]).then(() => undefined);
    this.terminals.set(terminal.id, terminal);
    void child.exited.then(() => this.options.onChange());
    this.options.onChange();
    return { terminalId: terminal.id };
  }

  output(terminalId: string): TerminalOutput {
    const terminal = this.get(terminalId);
    const done = terminal.child.exitCode !== null || terminal.child.signalCode !== null;
    return {
      output: new TextDecoder().decode(terminal.output),
      truncated: terminal.truncated,
      exitCode: done ? terminal.child.exitCode : null,
      signal: done ? signalOf(terminal.child) : null,
    };
  }

  async waitForExit(terminalId: string): Promise<acp.WaitForTerminalExitResponse> {
    const terminal = this.get(terminalId);
    await terminal.child.exited;
    await terminal.drained;
    return { exitCode: terminal.child.exitCode, signal: signalOf(terminal.child) };
  }

  kill(terminalId: string): void {
    const terminal = this.get(terminalId);
    if (terminal.child.exitCode !== null || terminal.child.signalCode !== null) return;
    terminal.killed = true;
    killGroup(terminal.child);
  }

  /** The agent is done with it: a command still running is killed, and the task goes away. */
  release(terminalId: string): void {
    this.kill(terminalId);
    this.terminals.delete(terminalId);
    this.options.onChange();
  }

  /** A tool call shows this terminal's output: the task is that tool call's. */
  linkToolCall(terminalId: string, toolCallId: string): void {
    const terminal = this.terminals.get(terminalId);
    if (!terminal || terminal.toolCallId === toolCallId) return;
    terminal.toolCallId = toolCallId;
    this.options.onChange();
  }

  has(terminalId: string): boolean {
    return this.terminals.has(terminalId);
  }

  tasks(): BackgroundTask[] {
    return [...this.terminals.values()].map((terminal) => this.task(terminal));
  }

  task(terminal: Terminal | string): BackgroundTask {
    const known = typeof terminal === "string" ? this.get(terminal) : terminal;
    const running = known.child.exitCode === null && known.child.signalCode === null;
    return {
      id: known.id,
      description: known.description,
      status: running ? "running" : known.killed ? "killed" : "exited",
      taskType: "terminal",
      toolUseId: known.toolCallId,
      terminalKey: known.id,
      readOnly: true,
    };
  }

  /** Kills every command (the agent stopped). */
  closeAll(): void {
    for (const terminal of this.terminals.values()) {
      if (terminal.child.exitCode === null && terminal.child.signalCode === null) killGroup(terminal.child);
    }
    this.terminals.clear();
  }

  private get(terminalId: string): Terminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) throw new AcpRefusal("resourceNotFound", `terminal ${terminalId}`);
    return terminal;
  }

  private async collect(terminal: Terminal, stream: ReadableStream<Uint8Array>): Promise<void> {
    for await (const chunk of stream) {
      let output = Buffer.concat([terminal.output, chunk]);
      if (output.length > terminal.limitBytes) {
        output = output.subarray(output.length - terminal.limitBytes);
        // Cut at a character boundary: drop UTF-8 continuation bytes left at the start.
        let start = 0;
        while (start < output.length && (output[start]! & 0xc0) === 0x80) start++;
        output = output.subarray(start);
        terminal.truncated = true;
      }
      terminal.output = output;
    }
  }
}

function signalOf(child: Bun.Subprocess): string | null {
  return child.signalCode === null ? null : String(child.signalCode);
}
