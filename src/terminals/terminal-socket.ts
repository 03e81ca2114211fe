import type { RevocationWatch, TokenAuthorization } from "../auth/revocation-watch.ts";
import type { Socket, SocketHandlers } from "../http/web-socket.ts";
import type { Logger } from "../logging/logger.ts";
import type { LiveTerminal, TerminalExit, TerminalViewer } from "./live-terminal.ts";

/** Output waiting in one client's socket past this is skipped, not queued (the default; tests lower it). */
export const CLIENT_BUFFER_BYTES = 1024 * 1024;

/**
 * What a client too slow for the output gets in place of what it missed, in the output itself so any
 * terminal shows it: `\r\n[atrium: skipped <N> bytes]\r\n`.
 */
export const skippedMarker = (bytes: number): string => `\r\n[atrium: skipped ${bytes} bytes]\r\n`;

/** The resize control message a client sends as a text frame: `{"type":"resize","cols":…,"rows":…}`. */
export interface ResizeMessage {
  type: "resize";
  cols: number;
  rows: number;
}

/**
 * One attached client. Output goes out as binary frames while its socket keeps up; once more than
 * `bufferLimit` waits in the socket, output is counted instead of queued, and when the socket has
 * drained below half of that the client gets the skipped marker and the output from there on.
 */
export class TerminalClient implements TerminalViewer {
  private skipped = 0;

  constructor(
    private readonly socket: Socket,
    private readonly bufferLimit: number,
  ) {}

  output(chunk: Uint8Array): void {
    if ((this.skipped > 0 && !this.catchUp()) || this.socket.getBufferedAmount() > this.bufferLimit) {
      this.skipped += chunk.byteLength;
      return;
    }
    this.socket.sendBinary(chunk);
  }

  /** The socket sent what waited: the client learns what it missed. */
  drain(): void {
    if (this.skipped > 0) this.catchUp();
  }

  exited(exit: TerminalExit): void {
    this.socket.sendText(JSON.stringify({ type: "exit", ...exit }));
    this.socket.close(1000, "the terminal's process exited");
  }

  private catchUp(): boolean {
    if (this.socket.getBufferedAmount() > this.bufferLimit / 2) return false;
    this.socket.sendBinary(new TextEncoder().encode(skippedMarker(this.skipped)));
    this.skipped = 0;
    return true;
  }
}

/** What one client's socket needs besides its terminal. */
export interface TerminalSocketOptions {
  /** Output waiting in the socket past this is skipped. */
  bufferLimit: number;
  /** Checks a resize, applies it and says what was wrong. */
  resize(cols: unknown, rows: unknown): void;
  /** The token the socket was opened with, when it can be revoked: the socket closes (1008) once `revocations` finds it revoked. */
  authorization: TokenAuthorization | undefined;
  revocations: RevocationWatch;
  logger: Logger;
}

/** Policy violation: what a socket closes with when its token was revoked. */
const REVOKED_CLOSE_CODE = 1008;

const errorMessage = (error: string): string => JSON.stringify({ type: "error", error });

/**
 * A text frame that is a resize message; any other frame, binary or text, is input. (Text that must be
 * typed although it reads as a resize message goes as a binary frame.)
 */
export function resizeMessage(text: string): ResizeMessage | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(text) as { type?: unknown };
    return parsed.type === "resize" ? (parsed as ResizeMessage) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The socket of one client of a terminal: attached on open (the recent output first), input written
 * to the PTY, resizes passed on, detached on close. Input the program leaves unread past its bound is
 * dropped, and the client told once until the PTY takes input again.
 */
export function terminalSocket(terminal: LiveTerminal, options: TerminalSocketOptions): SocketHandlers {
  let client: TerminalClient | undefined;
  let unwatchRevocation: (() => void) | undefined;
  let droppingInput = false;
  const handle = (socket: Socket, message: string | Buffer): void => {
    const control = typeof message === "string" ? resizeMessage(message) : undefined;
    if (control) {
      try {
        options.resize(control.cols, control.rows);
      } catch (error) {
        socket.sendText(errorMessage((error as Error).message));
      }
      return;
    }
    const written = terminal.write(message);
    if (!written && !droppingInput) socket.sendText(errorMessage("input dropped: the program is not reading it and too much is waiting"));
    droppingInput = !written;
  };
  return {
    open(socket) {
      client = new TerminalClient(socket, options.bufferLimit);
      terminal.attach(client);
      const { authorization } = options;
      unwatchRevocation =
        authorization &&
        options.revocations.watch(authorization, () => {
          options.logger.info(`closed a terminal's socket: the token "${authorization.tokenName}" is no longer valid`);
          socket.close(REVOKED_CLOSE_CODE, "the token was revoked");
        });
    },
    message(socket, message) {
      // A frame that fails is the client's alone: the server and the other clients go on.
      try {
        handle(socket, message);
      } catch (error) {
        options.logger.warn("a terminal's socket message failed", { error: (error as Error).message });
      }
    },
    drain: () => client?.drain(),
    close() {
      unwatchRevocation?.();
      if (client) terminal.detach(client);
    },
  };
}
