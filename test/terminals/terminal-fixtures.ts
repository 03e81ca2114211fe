import { PtyTerminal } from "../../src/schemas/terminals.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { until } from "../helpers/poll.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "../helpers/test-server.ts";
import { mergeOptions } from "../helpers/test-server.ts";

/** The shells tests run: /bin/sh with a plain prompt, whatever the machine's $SHELL is. */
export const TEST_SHELL_ENV = { ...process.env, SHELL: "/bin/sh", PS1: "$ " };

export interface TerminalServer {
  t: TestServer;
  projectId: string;
  /** POST /v1/terminals in the scratch project (80×24 unless told), checked against the schema. */
  create(body?: Record<string, unknown>): Promise<PtyTerminal>;
  /** A client attached with the admin token. */
  attach(id: string): Promise<TerminalSocketClient>;
  stop(): Promise<void>;
}

export async function startTerminalServer(options: TestServerOptions = {}): Promise<TerminalServer> {
  const t = await startTestServer(mergeOptions({ tuning: { modules: { terminals: { env: TEST_SHELL_ENV } } } }, options));
  const clients: TerminalSocketClient[] = [];
  const project = await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
  return {
    t,
    projectId: project.body.id,
    async create(body = {}) {
      const created = await t.json<PtyTerminal>("POST", "/v1/terminals", { projectId: project.body.id, cols: 80, rows: 24, ...body });
      if (created.status !== 201) throw new Error(`POST /v1/terminals answered ${created.status}: ${JSON.stringify(created.body)}`);
      assertMatchesSchema(PtyTerminal, created.body);
      return created.body;
    },
    async attach(id) {
      const client = await TerminalSocketClient.open(socketUrl(t.url, id), { authorization: `Bearer ${t.token}` });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients) client.close();
      await t.stop();
    },
  };
}

export const socketUrl = (base: string, id: string, ticket?: string): string =>
  `${base.replace(/^http/, "ws")}/v1/terminals/${id}/socket${ticket ? `?ticket=${encodeURIComponent(ticket)}` : ""}`;

/** A control message the server sent as a text frame. */
export type ControlMessage = { type: "exit"; exitCode: number | null; signal: string | null } | { type: "error"; error: string };

/** A real WebSocket client of a terminal: what it printed as text, the control messages, the close. */
export class TerminalSocketClient {
  text = "";
  readonly controls: ControlMessage[] = [];
  closeCode: number | undefined;
  private readonly decoder = new TextDecoder();

  private constructor(private readonly socket: WebSocket) {
    socket.binaryType = "arraybuffer";
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") this.controls.push(JSON.parse(event.data) as ControlMessage);
      else this.text += this.decoder.decode(new Uint8Array(event.data as ArrayBuffer), { stream: true });
    });
    socket.addEventListener("close", (event) => (this.closeCode = event.code));
  }

  /** Opens the socket; fails with the status when the server refused the upgrade. */
  static open(url: string, headers: Record<string, string> = {}): Promise<TerminalSocketClient> {
    // Bun's WebSocket takes headers, as a native client does; a browser would use a ticket.
    const socket = new WebSocket(url, { headers } as unknown as string[]);
    return new Promise((resolve, reject) => {
      socket.addEventListener("open", () => resolve(new TerminalSocketClient(socket)), { once: true });
      socket.addEventListener("error", () => reject(new Error(`the socket ${url.replace(/ticket=[^&]+/, "ticket=…")} was refused`)), { once: true });
    });
  }

  /** Typed input, as a text frame. */
  type(input: string): void {
    this.socket.send(input);
  }

  resize(cols: number, rows: number): void {
    this.socket.send(JSON.stringify({ type: "resize", cols, rows }));
  }

  /** Waits until the output matches, and returns the match. */
  async waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
    const text = await until(
      async () => this.text,
      (text) => pattern.test(text),
      timeoutMs,
    ).catch(() => {
      throw new Error(`no ${pattern} in the output: ${JSON.stringify(this.text.slice(-1000))}`);
    });
    return text.match(pattern)!;
  }

  async waitForClose(timeoutMs = 10_000): Promise<number> {
    await until(
      async () => this.closeCode,
      (code) => code !== undefined,
      timeoutMs,
    );
    return this.closeCode!;
  }

  close(): void {
    this.socket.close();
  }
}
