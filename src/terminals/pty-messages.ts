/** What the server tells a terminal's PTY worker (pty-worker.ts). */
export type ToPtyWorker =
  | {
      type: "start";
      argv: string[];
      cwd: string;
      env: Record<string, string | undefined>;
      cols: number;
      rows: number;
      /** One Int32: how many output messages the server has taken (pty-worker.ts waits on it). */
      taken: SharedArrayBuffer;
    }
  | { type: "write"; input: string | Uint8Array }
  | { type: "resize"; cols: number; rows: number }
  /** The server has taken the last output message (and counted it in `taken`): the next may go. */
  | { type: "taken" }
  /** Hang the PTY up (the terminal is ending); the process's exit follows. */
  | { type: "close" };

/** What a PTY worker tells the server, in order: started (or failed), output and drains, then exited once. */
export type FromPtyWorker =
  | { type: "started"; pid: number }
  | { type: "failed"; error: string }
  /** Output, one message at a time: what the PTY gave while the server had not taken the last one comes joined in the next. */
  | { type: "output"; chunk: Uint8Array }
  /** The PTY took all the input it was given. */
  | { type: "drain" }
  /** The process exited and its last output was passed on; the PTY is closed. */
  | { type: "exited"; exitCode: number | null; signal: string | null };
