import { ConflictError } from "../errors.ts";
import type { ChildProcesses } from "../process/child-processes.ts";
import { killSession } from "../process/process-session.ts";
import { signalGroup } from "../process/run-command.ts";
import { OutputRing } from "./output-ring.ts";
import type { FromPtyWorker, ToPtyWorker } from "./pty-messages.ts";
import { workerUrl } from "../system/worker-url.ts";

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
 * A process on a pseudo-terminal (Bun's own PTY: no native addon), in a session and process group of
 * its own, with the recent output kept for clients that attach later. Its clients come and go; the
 * process runs until it exits or is ended. The PTY itself is read in a worker thread (pty-worker.ts),
 * so a flood of output never stalls the server's own loop.
 */
export class LiveTerminal {
  readonly ring = new OutputRing();
  private readonly viewers = new Set<TerminalViewer>();
  /** Resolves once the process has exited and its last output was passed on. */
  readonly finished: Promise<TerminalExit>;
  private ended: TerminalExit | undefined;
  /** The PTY was closed (ended, or the process exited): writes and resizes no longer reach it. */
  private closed = false;
  /** Input written since the PTY last took all it was given (Bun buffers the rest without limit). */
  private pendingInputBytes = 0;

  private constructor(
    private readonly options: LiveTerminalOptions,
    private readonly worker: Worker,
    readonly pid: number,
    exited: Promise<TerminalExit>,
  ) {
    options.children.trackPid(pid, options.argv, exited);
    this.finished = exited.then(async (exit) => {
      this.closed = true;
      worker.terminate();
      // Jobs the shell left (each in a group of its own) end with it: nothing outlives its terminal.
      await killSession(pid);
      this.ended = exit;
      for (const viewer of this.viewers) viewer.exited(exit);
      this.viewers.clear();
      options.onExit(exit);
      return exit;
    });
  }

  /** Starts the process on its PTY; rejects with the reason when it cannot be started. */
  static start(options: LiveTerminalOptions): Promise<LiveTerminal> {
    const worker = new Worker(workerUrl("terminals/pty-worker.ts"));
    const taken = new Int32Array(new SharedArrayBuffer(4));
    let exited!: (exit: TerminalExit) => void;
    const exit = new Promise<TerminalExit>((resolve) => (exited = resolve));
    return new Promise<LiveTerminal>((resolve, reject) => {
      let live: LiveTerminal | undefined;
      worker.onmessage = (event: MessageEvent<FromPtyWorker>) => {
        const message = event.data;
        switch (message.type) {
          case "started":
            live = new LiveTerminal(options, worker, message.pid, exit);
            resolve(live);
            break;
          case "failed":
            worker.terminate();
            reject(new Error(message.error));
            break;
          case "output":
            live?.output(message.chunk);
            // Counted where the worker, its reading paused, waits; and said, for when it is not waiting.
            Atomics.add(taken, 0, 1);
            Atomics.notify(taken, 0);
            worker.postMessage({ type: "taken" } satisfies ToPtyWorker);
            break;
          case "drain":
            if (live) live.pendingInputBytes = 0;
            break;
          case "exited":
            exited({ exitCode: message.exitCode, signal: message.signal });
        }
      };
      worker.onerror = (event) => {
        // The thread died: its process is ended as on DELETE, and the terminal reads as killed.
        if (!live) {
          worker.terminate();
          reject(new Error(event.message));
          return;
        }
        signalGroup(live, "SIGKILL");
        exited({ exitCode: null, signal: "SIGKILL" });
      };
      const start: ToPtyWorker = {
        type: "start",
        argv: options.argv,
        cwd: options.cwd,
        env: options.env,
        cols: options.cols,
        rows: options.rows,
        taken: taken.buffer as SharedArrayBuffer,
      };
      worker.postMessage(start);
    });
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
    this.tell({ type: "write", input });
    return true;
  }

  resize(cols: number, rows: number): void {
    if (this.closed) throw new ConflictError("the terminal is ending");
    this.tell({ type: "resize", cols, rows });
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
    signalGroup(this, "SIGHUP");
    this.closePty();
    const kill = setTimeout(() => signalGroup(this, "SIGKILL"), this.options.endGraceMs);
    const exit = await this.finished;
    clearTimeout(kill);
    return exit;
  }

  private closePty(): void {
    this.closed = true;
    this.tell({ type: "close" });
  }

  private tell(message: ToPtyWorker): void {
    this.worker.postMessage(message);
  }

  private output(chunk: Uint8Array): void {
    this.ring.append(chunk);
    for (const viewer of this.viewers) viewer.output(chunk);
  }
}
