import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { runAtrium, builtCommand, startServe, StreamedText, type ServeProcess } from "../helpers/cli-process.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { Health, ServerInfo } from "../../src/schemas/system.ts";
import { SyncNamespace } from "../../src/schemas/sync.ts";
import packageJson from "../../package.json" with { type: "json" };
import { SseClient } from "../helpers/sse-client.ts";
import { logSays } from "../helpers/locked-database.ts";
import { until } from "../helpers/poll.ts";
import { connect } from "node:net";

let home: ReturnType<typeof makeTempDir>;
let serve: ServeProcess | undefined;
beforeEach(() => {
  home = makeTempDir();
});
afterEach(async () => {
  if (serve && serve.child.exitCode === null) {
    serve.child.kill("SIGKILL");
    await serve.child.exited;
  }
  serve = undefined;
  home.remove();
});

const atrium = (...args: string[]) => runAtrium(builtCommand, args, home.path);
const adminToken = () => readFileSync(join(home.path, "token"), "utf8").trim();

describe("atrium CLI", () => {
  test("--version prints the version", async () => {
    const result = await atrium("--version");
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(packageJson.version);
  });

  test("token prints the admin token alone, creating it once with mode 0600", async () => {
    const first = await atrium("token");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^atr_[A-Za-z0-9_-]{43}\n$/);
    expect(statSync(join(home.path, "token")).mode & 0o777).toBe(0o600);
    expect((await atrium("token")).stdout).toBe(first.stdout);
  });

  test("token create / list / revoke manage named tokens", async () => {
    const created = await atrium("token", "create", "--name", "phone");
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toStartWith("atr_");
    expect(token).not.toBe(adminToken());
    // The list and the refused second create change nothing: at once.
    const [listed, duplicate] = await Promise.all([atrium("token", "list", "--json"), atrium("token", "create", "--name", "phone")]);
    expect(JSON.parse(listed.stdout).map((t: { name: string }) => t.name)).toEqual(["phone"]);
    expect(listed.stdout).not.toContain(token);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('a token named "phone" already exists');
    expect((await atrium("token", "revoke", "phone")).code).toBe(0);
    const missing = await atrium("token", "revoke", "phone");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no token is named "phone"');
  });

  test("status says clearly when no server runs, with exit code 1", async () => {
    const [human, json] = await Promise.all([atrium("status"), atrium("status", "--json")]);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain("atrium is not running");
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ running: false });
  });

  test("SIGTERM lets an in-flight request finish, then stops cleanly", async () => {
    serve = await startServe(builtCommand, home.path);
    // A request whose body is still arriving when the signal comes. It asks before sending its body
    // (Expect: 100-continue): the server's answer says the request is in its hands.
    const body = JSON.stringify({ entries: [{ key: "k", value: "v", timestamp: { wallMs: 1, counter: 0, deviceId: "d" } }] });
    const { hostname, port } = new URL(serve.url);
    let answer = "";
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `PUT /v1/sync/shutdown HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${adminToken()}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
      );
    });
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    const answered = (text: string) =>
      until(
        async () => answer,
        (received) => received.includes(text),
      );
    try {
      await answered("HTTP/1.1 100 Continue\r\n\r\n");
      socket.write(body.slice(0, 10));
      serve.child.kill("SIGTERM");
      await logSays(home.path, '"msg":"shutting down"');
      socket.write(body.slice(10));
      await answered("HTTP/1.1 200 OK\r\n");
    } finally {
      socket.destroy();
    }
    expect(await serve.child.exited).toBe(0);
    expect(existsSync(join(home.path, "server.json"))).toBe(false);
    const log = readFileSync(join(home.path, "logs", "atrium.log"), "utf8");
    expect(log).toContain('"msg":"stopped"');
  });

  test("kill -9 after an acknowledged write loses neither the write nor its event", async () => {
    serve = await startServe(builtCommand, home.path);
    const headers = { authorization: `Bearer ${adminToken()}`, "content-type": "application/json" };
    const entry = { key: "durable", value: { n: 42 }, timestamp: { wallMs: 7, counter: 0, deviceId: "d" } };
    const written = await fetch(`${serve.url}/v1/sync/crash`, { method: "PUT", headers, body: JSON.stringify({ entries: [entry] }) });
    expect(written.status).toBe(200);
    serve.child.kill("SIGKILL");
    await serve.child.exited;

    serve = await startServe(builtCommand, home.path);
    const read = await fetch(`${serve.url}/v1/sync/crash`, { headers });
    const namespace = (await read.json()) as { entries: unknown[] };
    assertMatchesSchema(SyncNamespace, namespace);
    expect(namespace.entries).toEqual([{ ...entry, deleted: false }]);
    const replay = new SseClient(`${serve.url}/v1/events/stream?after=0&kind=sync.changed`, headers);
    const [event] = await replay.waitForFrames(1);
    replay.close();
    expect(JSON.parse(event!.data).payload).toEqual({ namespace: "crash", keys: ["durable"] });
  });
});

/** One server for the tests that only talk to it: none of them stops, kills or restarts it. */
describe("atrium CLI with a server running", () => {
  let running: { home: ReturnType<typeof makeTempDir>; serve: ServeProcess };
  beforeAll(async () => {
    const runningHome = makeTempDir();
    running = { home: runningHome, serve: await startServe(builtCommand, runningHome.path) };
  });
  afterAll(async () => {
    running.serve.child.kill("SIGTERM");
    await running.serve.child.exited;
    running.home.remove();
  });
  const atriumThere = (...args: string[]) => runAtrium(builtCommand, args, running.home.path);

  test("serve prints one listening line; status reports the server; a named token works against it", async () => {
    const { serve } = running;
    expect(serve.firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    // None of the three changes what the others read: at once.
    const [status, human, created] = await Promise.all([
      atriumThere("status", "--json"),
      atriumThere("status"),
      atriumThere("token", "create", "--name", "laptop"),
    ]);
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout);
    expect(report.running).toBe(true);
    expect(report.url).toBe(serve.url);
    assertMatchesSchema(Health, report.health);
    assertMatchesSchema(ServerInfo, report.info);
    // Harness readiness too; the built-in echo agent is there on every machine.
    expect(report.harnesses.map((harness: { id: string }) => harness.id)).toContain("claude");
    expect(report.harnesses.find((harness: { id: string }) => harness.id === "echo")).toMatchObject({ enabled: true, readiness: { state: "ready" } });
    expect(human.stdout).toContain("is running");
    expect(human.stdout).toMatch(/echo\s+ready/);
    const named = created.stdout.trim();
    expect((await fetch(`${serve.url}/v1/info`, { headers: { authorization: `Bearer ${named}` } })).status).toBe(200);
  });

  test("a port in use and a bad port are clear errors", async () => {
    const port = new URL(running.serve.url).port;
    const [busy, bad] = await Promise.all([atrium("serve", "--port", port), atrium("serve", "--port", "99999")]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("already in use");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--port must be 0 to 65535");
  });

  test("logs prints the log, and --follow keeps printing new lines", async () => {
    const printed = await atriumThere("logs");
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('"msg":"listening"');
    const follower = Bun.spawn([...builtCommand, "logs", "--follow", "--lines", "1"], {
      env: { ...process.env, ATRIUM_HOME: running.home.path },
      stdout: "pipe",
    });
    const output = new StreamedText(follower.stdout);
    // The last line first: the follower is reading before the new line is written (a loaded machine starts it slowly).
    await output.waitFor("\n");
    expect(output.text).not.toContain("refused a request");
    await fetch(`${running.serve.url}/v1/info`); // refused: logged as such
    await output.waitFor("refused a request");
    follower.kill();
    expect(output.text).toContain("refused a request");
  });
});
