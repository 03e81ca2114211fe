import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { constants, createGunzip, type Gunzip } from "node:zlib";
import { until } from "../helpers/poll.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "../helpers/test-server.ts";

let t: TestServer | undefined;

/** A name the server answers besides loopback ones: what a phone reaching it over the network sends as Host. */
const PHONE_HOST = "phone.test";
const REMOTE = { host: PHONE_HOST };
const serverForPhones = (tuning?: TestServerOptions["tuning"]) => startTestServer({ config: { allowedHosts: [PHONE_HOST] }, ...(tuning ? { tuning } : {}) });
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

let wallMs = 1;
/** One acknowledged write; it appends one `sync.changed` event and returns its globalEventId. */
async function write(server: TestServer): Promise<number> {
  const { status } = await server.json("PUT", "/v1/sync/gz", {
    entries: [{ key: "k", value: wallMs, timestamp: { wallMs: wallMs++, counter: 0, deviceId: "test" } }],
  });
  expect(status).toBe(200);
  const { body } = await server.json<{ cursor: number }>("GET", "/v1/events/cursor");
  return body.cursor;
}

/**
 * The stream as sent (`decompress: false`), decoded here as each piece arrives: every piece goes into
 * one gunzip with a sync flush, so `text` holds exactly what the bytes received so far decode to.
 */
class GzipStreamReader {
  text = "";
  /** Bytes received as sent, before decoding. */
  sentBytes = 0;
  ended = false;
  error: Error | undefined;
  private readonly gunzip: Gunzip = createGunzip();
  private readonly abort = new AbortController();
  private readonly decoder = new TextDecoder();

  private constructor(readonly response: Response) {
    this.gunzip.on("data", (chunk: Buffer) => {
      this.text += this.decoder.decode(chunk, { stream: true });
    });
    this.gunzip.on("end", () => {
      this.ended = true;
    });
    this.gunzip.on("error", (error: Error) => {
      this.error = error;
    });
  }

  static async open(server: TestServer, headers: Record<string, string>): Promise<GzipStreamReader> {
    const abort = new AbortController();
    const response = await fetch(`${server.url}/v1/events/stream`, {
      headers: { authorization: `Bearer ${server.token}`, ...headers },
      signal: abort.signal,
      decompress: false,
    });
    const reader = new GzipStreamReader(response);
    reader.abort.signal.addEventListener("abort", () => abort.abort());
    if (response.headers.get("content-encoding") === "gzip") void reader.pump();
    return reader;
  }

  private async pump(): Promise<void> {
    try {
      for await (const chunk of this.response.body!) {
        this.sentBytes += chunk.byteLength;
        this.gunzip.write(chunk);
        await new Promise<void>((resolve) => this.gunzip.flush(constants.Z_SYNC_FLUSH, resolve));
      }
      this.gunzip.end();
    } catch {
      // closed by the test
    }
  }

  async waitFor(needle: string, timeoutMs = 5_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!this.text.includes(needle)) {
      if (this.error) throw this.error;
      if (performance.now() > deadline) throw new Error(`"${needle}" was not decodable within ${timeoutMs} ms; decoded: ${this.text.slice(-300)}`);
      await Bun.sleep(5);
    }
  }

  close(): void {
    this.abort.abort();
    this.gunzip.destroy();
  }
}

/** A request with no Accept-Encoding at all (fetch always sends one), over a plain socket: the head and what follows. */
function rawStream(server: TestServer, done: (text: string) => boolean): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    let text = "";
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET /v1/events/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${server.token}\r\n\r\n`);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within 2 s: ${text}`));
    }, 2_000);
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (done(text)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text);
      }
    });
    socket.on("error", reject);
  });
}

describe("event stream compression", () => {
  /** One server for the tests that only open streams on it and write; those that tune or stop it have their own. */
  let shared: TestServer;
  beforeAll(async () => {
    shared = await serverForPhones();
    await shared.ready();
  });
  afterAll(() => shared.stop());

  test("a client taking gzip gets a gzip stream in which each event decodes as soon as it is sent", async () => {
    const t = shared;
    const stream = await GzipStreamReader.open(t, { ...REMOTE, "accept-encoding": "gzip, deflate, br, zstd" });
    try {
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get("content-encoding")).toBe("gzip");
      expect(stream.response.headers.get("vary")).toBe("accept-encoding");
      expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      await stream.waitFor(": connected\n\n");
      for (let index = 0; index < 20; index++) {
        const id = await write(t);
        // Decodable before the next event exists: nothing waits for more input to fill a block.
        await stream.waitFor(`id: ${id}\nevent: sync.changed\n`);
        const frame = stream.text.slice(stream.text.indexOf(`id: ${id}\n`));
        expect(frame.endsWith("\n\n")).toBe(true);
      }
    } finally {
      stream.close();
    }
  });

  test("flushed per event, the gzip stream is under half the plain one's bytes", async () => {
    const stream = await GzipStreamReader.open(shared, { ...REMOTE, "accept-encoding": "gzip" });
    try {
      let id = 0;
      for (let index = 0; index < 50; index++) id = await write(shared);
      await stream.waitFor(`id: ${id}\n`);
      expect(stream.sentBytes).toBeLessThan(Buffer.byteLength(stream.text) / 2);
    } finally {
      stream.close();
    }
  });

  test("gzip is not sent to a client that asks for identity, only brotli, or refuses gzip, nor to one on this machine", async () => {
    const t = shared;
    const asked = [
      { ...REMOTE, "accept-encoding": "identity" },
      { ...REMOTE, "accept-encoding": "br" },
      { ...REMOTE, "accept-encoding": "gzip;q=0, br" },
      { "accept-encoding": "gzip, deflate, br, zstd" },
      { host: "localhost", "accept-encoding": "gzip" },
    ];
    for (const headers of asked) {
      const response = await fetch(`${t.url}/v1/events/stream`, {
        headers: { authorization: `Bearer ${t.token}`, ...headers },
        decompress: false,
      });
      expect(response.headers.get("content-encoding")).toBeNull();
      expect(response.headers.get("vary")).toBe("accept-encoding");
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toBe("retry: 2000\n: connected\n\n");
      await reader.cancel();
    }
  });

  test("a client behind a proxy on this machine (a loopback name, a forwarding header) gets gzip", async () => {
    const t = shared;
    const stream = await GzipStreamReader.open(t, { "x-forwarded-for": "203.0.113.7", "accept-encoding": "gzip" });
    try {
      expect(stream.response.headers.get("content-encoding")).toBe("gzip");
      await stream.waitFor(": connected\n\n");
    } finally {
      stream.close();
    }
  });

  test("a client sending no Accept-Encoding gets the stream as plain text", async () => {
    const t = shared;
    const text = await rawStream(t, (received) => received.includes(": connected\n\n"));
    const head = text.slice(0, text.indexOf("\r\n\r\n")).toLowerCase();
    expect(head).toStartWith("http/1.1 200");
    expect(head).not.toContain("content-encoding");
    expect(head).toContain("vary: accept-encoding");
    expect(text).toContain("retry: 2000\n: connected\n\n");
  });

  test("heartbeats go through the compressor, flushed like events", async () => {
    t = await serverForPhones({ streamLimits: { heartbeatMs: 20 } });
    await t.ready();
    const stream = await GzipStreamReader.open(t, { ...REMOTE, "accept-encoding": "gzip" });
    try {
      await stream.waitFor(": heartbeat\n\n", 1_000);
      const id = await write(t);
      await stream.waitFor(`id: ${id}\n`);
      const heartbeats = stream.text.split(": heartbeat\n\n").length - 1;
      await until(
        async () => stream.text.split(": heartbeat\n\n").length - 1,
        (seen) => seen > heartbeats,
        2_000,
      );
    } finally {
      stream.close();
    }
  });

  test("a server shutting down ends a gzip stream with gzip's trailer, so the client's decoder ends cleanly", async () => {
    const server = await serverForPhones();
    t = server;
    await server.ready();
    const stream = await GzipStreamReader.open(server, { ...REMOTE, "accept-encoding": "gzip" });
    const decoded = fetch(`${server.url}/v1/events/stream`, { headers: { ...REMOTE, authorization: `Bearer ${server.token}` } });
    try {
      await stream.waitFor(": connected\n\n");
      const id = await write(server);
      await stream.waitFor(`id: ${id}\n`);
      const response = await decoded;
      expect(response.headers.get("content-encoding")).toBe("gzip");
      const text = response.text();
      t = undefined;
      await server.stop();
      // Bun's fetch decodes as it reads, and fails on a gzip stream cut short.
      expect(await text).toContain(": connected\n\n");
      await until(
        async () => stream.ended || stream.error !== undefined,
        (over) => over,
        2_000,
      );
      expect(stream.error).toBeUndefined();
      expect(stream.ended).toBe(true);
    } finally {
      stream.close();
    }
  });
});
