import { afterEach, describe, expect, test } from "bun:test";
import { AccessTokens } from "../../src/auth/access-tokens.ts";
import { withStore } from "../../src/cli/cli-context.ts";
import { dataPaths } from "../../src/config/paths.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { type PtyTerminal, TerminalTicket } from "../../src/schemas/terminals.ts";
import { TERMINAL_RING_BYTES } from "../../src/terminals/output-ring.ts";
import { TokenRepository } from "../../src/store/token-repository.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { socketUrl, startTerminalServer, TEST_SHELL_ENV, TerminalSocketClient, type TerminalServer } from "./terminal-fixtures.ts";

const servers: TerminalServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

async function server(options: Parameters<typeof startTerminalServer>[0] = {}): Promise<TerminalServer> {
  const started = await startTerminalServer(options);
  servers.push(started);
  return started;
}

async function expectError(response: { status: number; body: unknown }, status: number, says: string): Promise<void> {
  expect(response.status).toBe(status);
  assertMatchesSchema(ErrorBody, response.body);
  expect((response.body as { error: string }).error).toContain(says);
}

describe("who may attach", () => {
  test("without the token or a ticket the socket is refused; a ticket opens it once, for its own terminal only", async () => {
    const s = await server();
    const terminal = await s.create();
    const socket = `${s.t.url}/v1/terminals/${terminal.id}/socket`;
    const upgrade = { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" };
    for (const headers of [upgrade, { ...upgrade, authorization: "Bearer atr_wrongwrongwrongwrongwrong" }]) {
      const refused = await fetch(socket, { headers });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toStartWith("Bearer");
      assertMatchesSchema(ErrorBody, await refused.json());
    }
    await expect(TerminalSocketClient.open(socketUrl(s.t.url, terminal.id))).rejects.toThrow("refused");
    // With the token but no upgrade: it says what it is.
    await expectError(await s.t.json("GET", `/v1/terminals/${terminal.id}/socket`), 426, "WebSocket");

    const ticket = await s.t.json<TerminalTicket>("POST", `/v1/terminals/${terminal.id}/tickets`);
    expect(ticket.status).toBe(201);
    assertMatchesSchema(TerminalTicket, ticket.body);
    const client = await TerminalSocketClient.open(socketUrl(s.t.url, terminal.id, ticket.body.ticket));
    client.type("echo by-ticket\n");
    await client.waitFor(/by-ticket\r\n/);
    await expect(TerminalSocketClient.open(socketUrl(s.t.url, terminal.id, ticket.body.ticket))).rejects.toThrow("refused");
    const other = await s.create();
    const forOther = await s.t.json<TerminalTicket>("POST", `/v1/terminals/${other.id}/tickets`);
    await expect(TerminalSocketClient.open(socketUrl(s.t.url, terminal.id, forOther.body.ticket))).rejects.toThrow("refused");
    client.close();
  });

  test("revoking a named token closes its sockets (1008) at the next look at the tokens, and voids the tickets it asked for", async () => {
    const checkMs = 50;
    const s = await server({ tuning: { streamLimits: { authorizationCheckMs: checkMs } } });
    // As `atrium token create` and `revoke` do it: from another connection, straight in the database.
    const tokensOnDisk = <T>(use: (tokens: AccessTokens) => T): T =>
      withStore(dataPaths(s.t.dataDir), (store) => use(new AccessTokens("unused", new TokenRepository(store))));
    const phone = `Bearer ${tokensOnDisk((tokens) => tokens.create("phone").token)}`;
    const terminal = await s.create();
    const askTicket = async () => {
      const response = await fetch(`${s.t.url}/v1/terminals/${terminal.id}/tickets`, { method: "POST", headers: { authorization: phone } });
      expect(response.status).toBe(201);
      return ((await response.json()) as TerminalTicket).ticket;
    };
    const byHeader = await TerminalSocketClient.open(socketUrl(s.t.url, terminal.id), { authorization: phone });
    const byTicket = await TerminalSocketClient.open(socketUrl(s.t.url, terminal.id, await askTicket()));
    const unspent = await askTicket();
    const admin = await s.attach(terminal.id);

    tokensOnDisk((tokens) => tokens.revoke("phone"));
    const revokedAt = Date.now();
    expect(await Promise.all([byHeader.waitForClose(), byTicket.waitForClose()])).toEqual([1008, 1008]);
    expect(Date.now() - revokedAt).toBeLessThan(10 * checkMs);
    await expect(TerminalSocketClient.open(socketUrl(s.t.url, terminal.id, unspent))).rejects.toThrow("refused");
    // The admin token cannot be revoked: its socket goes on.
    admin.type("echo still-$((6*7))\n");
    await admin.waitFor(/still-42\r\n/);
    expect(admin.closeCode).toBeUndefined();
  });

  test("served beyond loopback without TLS, terminals are refused with the reason, unless config.json opts in", async () => {
    const refusing = await server({ host: "0.0.0.0" });
    const refused = await refusing.t.json("POST", "/v1/terminals", { projectId: refusing.projectId, cols: 80, rows: 24 });
    await expectError(refused, 403, "terminalsOverPlainHttp");
    expect((await refusing.t.api("/v1/terminals").then((response) => response.json())) as unknown[]).toEqual([]);
    const optedIn = await server({ host: "0.0.0.0", config: { terminalsOverPlainHttp: true } });
    expect((await optedIn.create()).state).toBe("running");
  });
});

describe("what is refused changes nothing", () => {
  test("bad input, unknown ids and the limit of running terminals", async () => {
    const s = await server({ config: { maxTerminals: 2 } });
    await expectError(await s.t.json("POST", "/v1/terminals", { projectId: s.projectId, cols: 0, rows: 24 }), 400, "cols");
    await expectError(await s.t.json("POST", "/v1/terminals", { projectId: "prj_none", cols: 80, rows: 24 }), 404, "prj_none");
    await expectError(
      await s.t.json("POST", "/v1/terminals", { projectId: s.projectId, cols: 80, rows: 24, locationId: "loc_x", sessionId: "ses_x" }),
      400,
      "not locationId and sessionId",
    );
    await expectError(await s.t.json("POST", "/v1/terminals", { projectId: s.projectId, cols: 80, rows: 24, sessionId: "ses_x" }), 404, "ses_x");
    await expectError(await s.t.json("POST", "/v1/terminals", { projectId: s.projectId, cols: 80, rows: 24, worktreeId: "wt_x" }), 404, "wt_x");
    await expectError(await s.t.json("PATCH", "/v1/terminals/term_none", { cols: 80, rows: 24 }), 404, "term_none");
    await expectError(await s.t.json("DELETE", "/v1/terminals/term_none"), 404, "term_none");
    expect(await (await s.t.api("/v1/terminals")).json()).toEqual([]);

    const [first] = [await s.create(), await s.create()];
    await expectError(await s.t.json("POST", "/v1/terminals", { projectId: s.projectId, cols: 80, rows: 24 }), 409, "maxTerminals");
    await s.t.json("DELETE", `/v1/terminals/${first!.id}`);
    expect((await s.create()).state).toBe("running");
  });
  test("a shell that cannot be started: 409 with the reason, no terminal, no event", async () => {
    const s = await server({ tuning: { modules: { terminals: { env: { ...TEST_SHELL_ENV, SHELL: "/nonexistent/shell" } } } } });
    const cursor = await s.t.ready();
    await expectError(await s.t.json("POST", "/v1/terminals", { projectId: s.projectId, cols: 80, rows: 24 }), 409, "/nonexistent/shell could not be started");
    expect(await (await s.t.api("/v1/terminals")).json()).toEqual([]);
    expect((await replayedEvents(s.t, cursor)).filter((event) => event.kind.startsWith("terminal."))).toEqual([]);
  });
});

describe("a terminal that is ending", () => {
  test("refuses resizes (409, no event) and ignores input until its process is gone; a resize to its own size is no change", async () => {
    const s = await server({ tuning: { modules: { terminals: { limits: { endGraceMs: 300 } } } } });
    const cursor = await s.t.ready();
    // It ignores the SIGHUP of DELETE: it ends at the SIGKILL after the grace.
    const terminal = await s.create({ command: "trap '' HUP; echo ready; sleep 1000" });
    const client = await s.attach(terminal.id);
    await client.waitFor(/ready/);
    expect((await s.t.json("PATCH", `/v1/terminals/${terminal.id}`, { cols: 80, rows: 24 })).status).toBe(200);

    const deleted = s.t.json("DELETE", `/v1/terminals/${terminal.id}`);
    const resizedTo: number[] = [];
    const refused = await until(
      async () => {
        const cols = 81 + resizedTo.length;
        const response = await s.t.json("PATCH", `/v1/terminals/${terminal.id}`, { cols, rows: 24 });
        if (response.status === 200) resizedTo.push(cols);
        return response;
      },
      (response) => response.status !== 200,
    );
    await expectError(refused, 409, "ending");
    client.type("echo too-late\n");
    client.resize(90, 30);
    await until(
      async () => client.controls,
      (controls) => controls.some((control) => control.type === "error" && control.error.includes("ending")),
    );
    expect((await deleted).status).toBe(200);
    const events = (await replayedEvents(s.t, cursor)).filter((event) => event.subjectId === terminal.id);
    expect(events.map((event) => event.kind)).toEqual(["terminal.created", ...resizedTo.map(() => "terminal.updated"), "terminal.exited"]);
    expect(client.text).not.toContain("too-late");
  });
});

describe("terminals end with what they belong to", () => {
  test("deleting a session ends the terminals opened for it; deleting the project ends the rest", async () => {
    const s = await server();
    await s.t.ready();
    const session = await s.t.json<{ id: string; cwd: string }>("POST", "/v1/sessions", { projectId: s.projectId, harnessId: "echo" });
    expect(session.status).toBe(201);
    const inSession = await s.create({ sessionId: session.body.id });
    expect(inSession).toMatchObject({ sessionId: session.body.id, cwd: session.body.cwd });
    const inProject = await s.create();
    expect((await s.t.json("DELETE", `/v1/sessions/${session.body.id}`)).status).toBe(200);
    await until(
      async () => (await s.t.json("GET", `/v1/terminals/${inSession.id}`)).status,
      (status) => status === 404,
    );
    expect((await s.t.json<PtyTerminal>("GET", `/v1/terminals/${inProject.id}`)).body.state).toBe("running");
    expect((await s.t.json("DELETE", `/v1/projects/${s.projectId}`)).status).toBe(200);
    expect((await s.t.json("GET", `/v1/terminals/${inProject.id}`)).status).toBe(404);
  });

  test("a terminal asked for while its project is deleted is not kept, and terminals still starting count against the limit", async () => {
    const s = await server({ config: { maxTerminals: 2 } });
    const body = { projectId: s.projectId, cols: 80, rows: 24 };
    // Three at once against a limit of two: the third is refused although none was listed yet.
    const statuses = (await Promise.all([1, 2, 3].map(() => s.t.json("POST", "/v1/terminals", body)))).map((answer) => answer.status);
    expect(statuses.sort()).toEqual([201, 201, 409]);
    // A create and the project's delete at once, in whichever order the server takes them: no terminal is left.
    const [created, deleted] = await Promise.all([s.t.json("POST", "/v1/terminals", body), s.t.json("DELETE", `/v1/projects/${s.projectId}`)]);
    expect(deleted.status).toBe(200);
    expect([201, 404, 409]).toContain(created.status);
    expect(await (await s.t.api("/v1/terminals")).json()).toEqual([]);
  });

  test("past the most exited terminals kept, the one that exited first is forgotten", async () => {
    const s = await server({ tuning: { modules: { terminals: { limits: { maxExitedTerminals: 2 } } } } });
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      const terminal = await s.create({ command: "true" });
      made.push(terminal.id);
      // One at a time, so that they exit in the order they were made.
      await until(
        async () => (await s.t.json<PtyTerminal>("GET", `/v1/terminals/${terminal.id}`)).body,
        (body) => body.state === "exited",
      );
    }
    const listed = (await (await s.t.api("/v1/terminals")).json()) as PtyTerminal[];
    expect(listed.map((terminal) => terminal.id)).toEqual(made.slice(-2));
  });

  test("an exited terminal stays for 10 minutes on the server's clock, then is forgotten", async () => {
    const clock = new ManualClock();
    const s = await server({ tuning: { clock } });
    const terminal = await s.create({ command: "exit 3" });
    await until(
      async () => (await s.t.json<PtyTerminal>("GET", `/v1/terminals/${terminal.id}`)).body,
      (body) => body.state === "exited" && body.exitCode === 3,
    );
    await clock.advance(9 * 60_000);
    expect((await s.t.json("GET", `/v1/terminals/${terminal.id}`)).status).toBe(200);
    await clock.advance(60_000);
    expect((await s.t.json("GET", `/v1/terminals/${terminal.id}`)).status).toBe(404);
  });
});

describe("the recent output", () => {
  test("a client attaching later gets at most the last 256 KiB, ending with the newest output", async () => {
    const s = await server();
    // 300 KiB of numbered lines, then a last line.
    const terminal = await s.create({ command: "seq 1 60000; echo last-line; sleep 100" });
    const watcher = await s.attach(terminal.id);
    await watcher.waitFor(/last-line\r\n/);
    const late = await s.attach(terminal.id);
    await late.waitFor(/last-line\r\n/);
    const replayed = new TextEncoder().encode(late.text).byteLength;
    expect(replayed).toBeLessThanOrEqual(TERMINAL_RING_BYTES);
    expect(replayed).toBeGreaterThan(TERMINAL_RING_BYTES - 16);
    expect(late.text).not.toContain("\r\n1\r\n");
    expect(late.text).toEndWith("59999\r\n60000\r\nlast-line\r\n");
  });
});
