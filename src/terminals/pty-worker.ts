/**
 * One terminal's PTY, in a thread of its own. Bun reads a PTY until it has nothing more to give, so a
 * program that prints without pause (`yes`) held the thread that read it for hundreds of milliseconds
 * at a time: on the server's thread that stalled every request and event stream. Here it stalls only
 * this terminal; its output goes to the server as messages, which the server's loop takes one by one.
 */
import type { FromPtyWorker, ToPtyWorker } from "./pty-messages.ts";

declare const self: Worker;

/**
 * After the process exits, what it wrote last may still be in the PTY: it is read until the PTY's end,
 * or for this long when a process it left holds the PTY open.
 */
const OUTPUT_AFTER_EXIT_MS = 250;

/**
 * Output waiting for the server past this stops the reading until the server takes it: the PTY then
 * fills and the program waits, as it would for a slow terminal, instead of a queue growing without bound.
 */
const PAUSE_AT_BYTES = 256 * 1024;

const tell = (message: FromPtyWorker, transfer: ArrayBuffer[] = []) => self.postMessage(message, transfer);

let terminal: Bun.Terminal | undefined;

/**
 * One output message in flight: a keystroke's echo goes at once, while a flood is joined into fewer,
 * larger messages at the pace the server takes them.
 */
class Outbox {
  private waiting: Uint8Array[] = [];
  private waitingBytes = 0;
  private sent = 0;
  private emptied: (() => void) | undefined;

  /** `taken[0]`: how many messages the server has taken; it counts and notifies there. */
  constructor(private readonly taken: Int32Array) {}

  private get inFlight(): boolean {
    return Atomics.load(this.taken, 0) < this.sent;
  }

  add(chunk: Uint8Array): void {
    this.waiting.push(chunk);
    this.waitingBytes += chunk.byteLength;
    // Blocking this thread is the point: Bun reads the PTY on it, so the reading stops meanwhile.
    while (this.waitingBytes >= PAUSE_AT_BYTES && this.inFlight) Atomics.wait(this.taken, 0, this.sent - 1, 1000);
    this.send();
  }

  /** Sends what waits, unless a message is still in flight (its taking sends the rest). */
  send(): void {
    if (this.waitingBytes === 0 || this.inFlight) return;
    const chunk = this.waiting.length === 1 ? this.waiting[0]! : Buffer.concat(this.waiting);
    this.waiting = [];
    this.waitingBytes = 0;
    this.sent++;
    // A fresh buffer each time (the PTY's chunk or the join): handed over, not copied.
    tell({ type: "output", chunk }, chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? [chunk.buffer as ArrayBuffer] : []);
    this.emptied?.();
  }

  /** Resolves once everything the PTY gave has been sent. */
  flushed(): Promise<void> {
    this.send();
    return this.waitingBytes === 0 ? Promise.resolve() : new Promise((resolve) => (this.emptied = resolve));
  }
}

let outbox: Outbox | undefined;

function start(message: Extract<ToPtyWorker, { type: "start" }>): void {
  const output = new Outbox(new Int32Array(message.taken));
  outbox = output;
  let outputEnded!: () => void;
  const eof = new Promise<void>((resolve) => (outputEnded = resolve));
  let child: Bun.Subprocess;
  try {
    child = Bun.spawn(message.argv, {
      cwd: message.cwd,
      env: message.env,
      terminal: {
        cols: message.cols,
        rows: message.rows,
        name: "xterm-256color",
        data: (_terminal, chunk) => output.add(chunk),
        drain: () => tell({ type: "drain" }),
        exit: () => outputEnded(),
      },
    });
  } catch (error) {
    tell({ type: "failed", error: (error as Error).message });
    return;
  }
  terminal = child.terminal!;
  tell({ type: "started", pid: child.pid });
  void child.exited.then(async () => {
    await Promise.race([eof, Bun.sleep(OUTPUT_AFTER_EXIT_MS)]);
    close();
    // What still waits goes first: the server learns of the exit after the last output.
    await output.flushed();
    tell({ type: "exited", exitCode: child.exitCode, signal: child.signalCode === null ? null : String(child.signalCode) });
  });
}

function close(): void {
  if (terminal && !terminal.closed) terminal.close();
}

self.onmessage = (event: MessageEvent<ToPtyWorker>) => {
  const message = event.data;
  if (message.type === "start") start(message);
  else if (message.type === "taken") outbox?.send();
  else if (message.type === "close") close();
  else if (!terminal || terminal.closed) return;
  else if (message.type === "write") terminal.write(message.input);
  else terminal.resize(message.cols, message.rows);
};
