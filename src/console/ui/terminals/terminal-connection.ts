import type { TerminalTicket } from "../../../schemas/terminals.ts";
import { ApiError, api } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import type { CellSize } from "./emulator-api.ts";

/** Where a terminal's connection stands, as the view says it. */
export type ConnectionState =
  | { kind: "connecting" }
  | { kind: "open" }
  /** The socket dropped (the network, the server restarting): tried again with a new ticket. */
  | { kind: "reconnecting"; reason: string }
  | { kind: "exited"; exitCode: number | null; signal: string | null }
  /** The server will not have this client attach: never tried again. */
  | { kind: "refused"; status: number; error: string };

export interface ConnectionListener {
  /** A socket opened: the output that follows starts again with the terminal's recent output. */
  attached(): void;
  output(bytes: Uint8Array): void;
  state(state: ConnectionState): void;
  /** A control message the server refused (a size it does not take). */
  refusedControl(error: string): void;
}

/** Waits before each new attempt after a drop, the last one repeated. */
const RETRY_DELAYS_MS = [500, 1_000, 2_000, 5_000];
/** Answers that no new ticket will change: refused (plain http beyond loopback), or the terminal is gone. */
const FINAL_STATUSES = new Set([403, 404]);

type ServerMessage = { type: "exit"; exitCode: number | null; signal: string | null } | { type: "error"; error: string };

/**
 * One terminal's socket, kept open: a ticket, then `GET /v1/terminals/{id}/socket?ticket=…` (a browser
 * cannot send the bearer header on a WebSocket); when it drops before the terminal exits, a new ticket
 * and a new socket, whose replay of the recent output draws the screen again.
 */
export class TerminalConnection {
  private socket: WebSocket | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private closed = false;
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly terminalId: string,
    private readonly listener: ConnectionListener,
  ) {}

  open(): void {
    void this.connect();
  }

  /** Keystrokes and pasted text, always as a binary frame: text that reads as a control message is still typed. */
  send(input: string): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(this.encoder.encode(input));
  }

  resize(size: CellSize): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: "resize", ...size }));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.socket?.close();
    this.socket = undefined;
  }

  private async connect(): Promise<void> {
    this.listener.state({ kind: "connecting" });
    const path = `/v1/terminals/${encodeURIComponent(this.terminalId)}`;
    let ticket: string;
    try {
      ticket = (await api<TerminalTicket>("POST", `${path}/tickets`)).ticket;
    } catch (failure) {
      if (failure instanceof ApiError && FINAL_STATUSES.has(failure.status)) {
        this.listener.state({ kind: "refused", status: failure.status, error: failure.message });
      } else {
        this.again(failureText(failure));
      }
      return;
    }
    if (this.closed) return;
    const url = new URL(`${path}/socket`, location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.searchParams.set("ticket", ticket);
    const socket = new WebSocket(url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    let exited = false;
    socket.onopen = () => {
      this.failures = 0;
      this.listener.attached();
      this.listener.state({ kind: "open" });
    };
    socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      if (typeof event.data !== "string") {
        this.listener.output(new Uint8Array(event.data));
        return;
      }
      const message = JSON.parse(event.data) as ServerMessage;
      if (message.type === "error") {
        this.listener.refusedControl(message.error);
        return;
      }
      exited = true;
      this.listener.state({ kind: "exited", exitCode: message.exitCode, signal: message.signal });
    };
    socket.onclose = () => {
      if (this.socket !== socket || this.closed || exited) return;
      this.socket = undefined;
      this.again("the connection to the terminal dropped");
    };
  }

  private again(reason: string): void {
    if (this.closed) return;
    this.listener.state({ kind: "reconnecting", reason });
    const delay = RETRY_DELAYS_MS[Math.min(this.failures, RETRY_DELAYS_MS.length - 1)];
    this.failures += 1;
    this.retry = setTimeout(() => void this.connect(), delay);
  }
}
