import { ConflictError } from "../errors.ts";
import type { ChildProcesses } from "../process/child-processes.ts";
import { killSession } from "../process/process-session.ts";
import { signalGroup } from "../process/run-command.ts";
import { OutputRing } from "./output-ring.ts";

/** How a terminal's process ended: its exit status, or the signal that ended it. */
export interface TerminalExit {
  exitCode: number | null;
  signal: string | null;
}

/** One client attached to a terminal (terminal-socket.ts): it gets the output as it comes, and the end. */
export interface TerminalViewer {
  /** What the terminal printed before the client attached (the ring), then each chunk as it comes. */
  output(chunk: Uint8Array): void;
  exited(exit: TerminalExit): void;
}

export interface LiveTerminalOptions {
  /** The program and its arguments: the shell, or the shell with `-c <command>`. */
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  cols: number;
  rows: number;
  /** Where the process is recorded while it runs, so shutdown and the start after a crash end it. */
  children: ChildProcesses;
  /** How long an ended terminal's process group has after SIGHUP before SIGKILL. */
  endGraceMs: number;
  /** Input the PTY has not taken yet past this is dropped (the program is not reading it). */
  maxPendingInputBytes: number;
  onExit(exit: TerminalExit): void;
}

/** Input a terminal's program has left unread past this is dropped, and its client told (the default; tests may change it). */
export const MAX_PENDING_INPUT_BYTES = 1024 * 1024;

/**
 * After the process exits, what it wrote last may still be in the PTY: it is read until the PTY's end,
 * or for this long when a process it left holds the PTY open.
 */
const OUTPUT_AFTER_EXIT_MS = 250;

/**
 * A process on a pseudo-terminal (Bun's own PTY: no native addon), in a session and process group of
 * its own, with the recent output kept for clients that attach later. Its clients come and go; the
 * process runs until it exits or is ended.
 */
export class LiveTerminal {
  readonly ring = new OutputRing();
  private readonly viewers = new Set<TerminalViewer>();
  private readonly process: Bun.Subprocess;
  private readonly terminal: Bun.Terminal;
  /** Resolves once the process has exited and its last output was passed on. */
  readonly finished: Promise<TerminalExit>;
  private ended: TerminalExit | undefined;
  /** The PTY was closed (ended, or the process exited): writing to it or resizing it would throw. */
  private closed = false;
  /** Input written since the PTY last took all it was given (Bun buffers the rest without limit). */
  private pendingInputBytes = 0;

  constructor(private readonly options: LiveTerminalOptions) {
    let outputEnded!: () => void;
    const eof = new Promise<void>((resolve) => (outputEnded = resolve));
    this.process = Bun.spawn(options.argv, {
      cwd: options.cwd,
      env: options.env,
      terminal: {
        cols: options.cols,
        rows: options.rows,
        name: "xterm-256color",
        data: (_terminal, chunk) => this.output(chunk),
        drain: () => (this.pendingInputBytes = 0),
        exit: () => outputEnded(),
      },
    });
    this.terminal = this.process.terminal!;
    options.children.track(this.process, options.argv);
    this.finished = this.process.exited.then(async () => {
      await Promise.race([eof, Bun.sleep(OUTPUT_AFTER_EXIT_MS)]);
      this.closePty();
      // Jobs the shell left (each in a group of its own) end with it: nothing outlives its terminal.
      await killSession(this.process.pid);
      const signal = this.process.signalCode;
      const exit: TerminalExit = { exitCode: this.process.exitCode, signal: signal === null ? null : String(signal) };
      this.ended = exit;
      for (const viewer of this.viewers) viewer.exited(exit);
      this.viewers.clear();
      options.onExit(exit);
      return exit;
    });
  }

  get pid(): number {
    return this.process.pid;
  }

  get exit(): TerminalExit | undefined {
    return this.ended;
  }

  /**
   * Keystrokes and pasted text, as the client sent them. False when dropped: the program has left
   * more than `maxPendingInputBytes` unread. Input to a terminal that is ending is ignored.
   */
  write(input: string | Uint8Array): boolean {
    if (this.closed) return true;
    if (this.pendingInputBytes > this.options.maxPendingInputBytes) return false;
    this.pendingInputBytes += typeof input === "string" ? Buffer.byteLength(input) : input.byteLength;
    this.terminal.write(input);
    return true;
  }

  resize(cols: number, rows: number): void {
    if (this.closed) throw new ConflictError("the terminal is ending");
    this.terminal.resize(cols, rows);
  }

  /** A new client gets the recent output first, then what comes; one attaching after the exit gets the end too. */
  attach(viewer: TerminalViewer): void {
    if (this.ring.size > 0) viewer.output(this.ring.contents());
    if (this.ended) viewer.exited(this.ended);
    else this.viewers.add(viewer);
  }

  detach(viewer: TerminalViewer): void {
    this.viewers.delete(viewer);
  }

  /**
   * Ends the process group: SIGHUP, as a closed terminal window sends (shells pass it to their jobs),
   * and the PTY hung up; SIGKILL for whatever is still there after the grace.
   */
  async end(): Promise<TerminalExit> {
    if (this.ended) return this.ended;
    signalGroup(this.process, "SIGHUP");
    this.closePty();
    const kill = setTimeout(() => signalGroup(this.process, "SIGKILL"), this.options.endGraceMs);
    const exit = await this.finished;
    clearTimeout(kill);
    return exit;
  }

  private closePty(): void {
    this.closed = true;
    this.terminal.close();
  }

  private output(chunk: Uint8Array): void {
    this.ring.append(chunk);
    for (const viewer of this.viewers) viewer.output(chunk);
  }
}
