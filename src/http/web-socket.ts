import type { Server, ServerWebSocket, WebSocketHandler } from "bun";

export type Socket = ServerWebSocket<SocketHandlers>;

/**
 * What one upgraded connection does with its frames. A route that upgrades (route.ts, `webSocket`)
 * hands these over as the socket's data, so the server's single WebSocket handler serves every kind.
 */
export interface SocketHandlers {
  open(socket: Socket): void;
  message(socket: Socket, message: string | Buffer): void;
  /** The socket took what was waiting to be sent: it can take more. */
  drain(socket: Socket): void;
  close(socket: Socket, code: number, reason: string): void;
}

/** Largest frame a client may send (a terminal's pasted text); bigger ones close the socket. */
const MAX_INCOMING_FRAME_BYTES = 1024 * 1024;

/** The server's WebSocket handler: each event goes to the handlers the upgrading route gave its socket. */
export const socketDispatch: WebSocketHandler<SocketHandlers> = {
  maxPayloadLength: MAX_INCOMING_FRAME_BYTES,
  // Output is sent as the program writes it; compression would cost latency on every keystroke's echo.
  perMessageDeflate: false,
  open: (socket) => socket.data.open(socket),
  message: (socket, message) => socket.data.message(socket, message),
  drain: (socket) => socket.data.drain(socket),
  close: (socket, code, reason) => socket.data.close(socket, code, reason),
};

/** The server's socket as every layer sees it: its upgraded connections carry their handlers. */
export type HttpServer = Server<SocketHandlers>;
