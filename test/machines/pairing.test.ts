import { afterEach, describe, expect, test } from "bun:test";
import { HeartbeatAnswer, MachineList, PairAcceptAnswer, SyncChanges, type Machine } from "../../src/schemas/machines.ts";
import type { EventRecord } from "../../src/schemas/events.ts";
import { Fleet, machinesOf, pair, pairingCode, untilOnline } from "../helpers/machine-fixtures.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { readServerDatabase } from "../helpers/test-store.ts";
import type { TestServer, TestServerOptions } from "../helpers/test-server.ts";

const fleet = new Fleet();
afterEach(() => fleet.stopAll());
const machine = (name: string, options?: TestServerOptions) => fleet.start(name, options);

/** The token names kept in a server's database (names only; tokens are hashes). */
function tokenNames(server: TestServer): string[] {
  return readServerDatabase(server.dataDir, (db) =>
    db
      .query<{ name: string }, []>("SELECT name FROM access_tokens ORDER BY name")
      .all()
      .map((row) => row.name),
  );
}

/** The events of a kind the server logged, read as a client does: replayed on its event stream. */
async function eventsOf(server: TestServer, kind: string): Promise<EventRecord[]> {
  return (await replayedEvents(server, 0)).filter((event) => event.kind === kind);
}

describe("pairing machines", () => {
  test("a code made on A and typed into B pairs them: both list both, each holds a token for the other, both come online", async () => {
    const [a, b] = await Promise.all([machine("studio"), machine("laptop")]);
    expect(await machinesOf(a)).toEqual([expect.objectContaining({ id: "mch-studio", name: "studio", isCurrent: true, online: true, addedBy: "" })]);

    const paired = await pair(a, b);
    expect(paired).toMatchObject({ id: "mch-studio", name: "studio", os: process.platform, isCurrent: false, addedBy: "admin" });

    const onB = await untilOnline(b, "mch-studio");
    expect(onB.map((listed) => [listed.id, listed.isCurrent])).toEqual([
      ["mch-laptop", true],
      ["mch-studio", false],
    ]);
    const onA = await untilOnline(a, "mch-laptop");
    expect(onA[1]).toMatchObject({ id: "mch-laptop", name: "laptop", addedBy: "admin", isCurrent: false });
    expect(Date.parse(onA[1]!.lastSeen)).toBeGreaterThan(Date.now() - 10_000);
    expect(tokenNames(a)).toEqual(["machine.mch-laptop"]);
    expect(tokenNames(b)).toEqual(["machine.mch-studio"]);

    const updates = await eventsOf(a, "machine.updated");
    expect(updates.some((event) => (event.payload as Machine).id === "mch-laptop" && (event.payload as Machine).online)).toBe(true);
  });

  test("a wrong or used code is a 401 on B and nothing is stored on either machine", async () => {
    const [a, b] = await Promise.all([machine("studio"), machine("laptop")]);
    const wrong = await b.json<{ error: string }>("POST", "/v1/machines/pair", { url: a.url, code: "AAAAA-BBBBB" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toContain("the pairing code is wrong, used or expired");

    const c = await machine("tablet");
    const code = await pairingCode(a);
    expect((await c.json("POST", "/v1/machines/pair", { url: a.url, code })).status).toBe(201);
    const used = await b.json<{ error: string }>("POST", "/v1/machines/pair", { url: a.url, code });
    expect(used.status).toBe(401);

    expect((await machinesOf(b)).map((listed) => listed.id)).toEqual(["mch-laptop"]);
    expect((await machinesOf(a)).map((listed) => listed.id)).toEqual(["mch-studio", "mch-tablet"]);
    expect(tokenNames(b)).toEqual([]);
    expect(tokenNames(a)).toEqual(["machine.mch-tablet"]);
  });

  test("a code may be typed in any case, with a space for its dash, and the URL with a trailing slash", async () => {
    const [a, b] = await Promise.all([machine("studio"), machine("laptop")]);
    const code = await pairingCode(a);
    expect(code).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
    const typed = code.replace("-", " ").toLowerCase();
    expect((await b.json("POST", "/v1/machines/pair", { url: `${a.url}/`, code: typed })).status).toBe(201);
  });

  test("five wrong codes in a minute and the next try is a 429 with Retry-After, the right code too", async () => {
    const a = await machine("studio");
    const code = await pairingCode(a);
    const accept = (tried: string) =>
      fetch(`${a.url}/v1/machines/pair/accept`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          code: tried,
          machine: { id: "mch-intruder", name: "x", os: "linux", url: "http://127.0.0.1:9" },
          token: "atr_0123456789abcdef0123",
        }),
      });
    for (let i = 0; i < 5; i++) expect((await accept(`WRONG-${i}000`)).status).toBe(401);
    const limited = await accept(code);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: string }).error).toContain("too many wrong pairing codes");
    expect((await machinesOf(a)).map((listed) => listed.id)).toEqual(["mch-studio"]);
    expect(tokenNames(a)).toEqual([]);
  });

  test("the accept call needs no token but its answer is the pairing; without a code's body it is a 400", async () => {
    const [a, b] = await Promise.all([machine("studio"), machine("laptop")]);
    const code = await pairingCode(a);
    const accepted = await fetch(`${a.url}/v1/machines/pair/accept`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code, machine: { id: "mch-laptop", name: "laptop", os: "linux", url: b.url }, token: "atr_0123456789abcdef0123" }),
    });
    expect(accepted.status).toBe(200);
    const answer = await accepted.json();
    assertMatchesSchema(PairAcceptAnswer, answer);
    expect((await fetch(`${a.url}/v1/machines/pair/accept`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(400);
  });

  test("pairing with itself is a 409, an unreachable machine a 502, a URL with a password a 400; nothing is stored", async () => {
    const a = await machine("studio");
    const twin = await machine("twin", { config: { machineId: "mch-studio" } });
    const self = await twin.json<{ error: string }>("POST", "/v1/machines/pair", { url: a.url, code: await pairingCode(a) });
    expect(self.status).toBe(409);
    expect(self.body.error).toContain("needs its own machineId in config.json");

    const gone = await twin.json<{ error: string }>("POST", "/v1/machines/pair", { url: "http://127.0.0.1:9", code: "AAAAA-BBBBB" });
    expect(gone.status).toBe(502);
    expect(gone.body.error).toContain("could not reach http://127.0.0.1:9");

    const secret = await twin.json<{ error: string }>("POST", "/v1/machines/pair", { url: "http://me:pw@127.0.0.1:9", code: "AAAAA-BBBBB" });
    expect(secret.status).toBe(400);
    expect(secret.body.error).toBe('body field "url" is invalid: it must hold no user, password, query or fragment');
    expect((await machinesOf(twin)).map((listed) => listed.id)).toEqual(["mch-studio"]);
    expect(tokenNames(twin)).toEqual([]);
  });

  test("the calls between machines refuse a client's token (403) and no token (401)", async () => {
    const a = await machine("studio");
    const heartbeat = { machine: { id: "mch-x", name: "x", os: "linux", url: "http://127.0.0.1:9" }, cursor: 0 };
    expect((await a.json("POST", "/v1/machines/peer/heartbeat", heartbeat)).status).toBe(403);
    expect((await a.json("GET", "/v1/machines/peer/changes?after=-1")).status).toBe(403);
    expect((await a.json("PUT", "/v1/machines/peer/changes", { entries: [] })).status).toBe(403);
    expect((await a.json("POST", "/v1/machines/peer/unpair")).status).toBe(403);
    expect((await fetch(`${a.url}/v1/machines/peer/changes?after=-1`)).status).toBe(401);
  });
});

/** The token a machine holds for calling its peer (kept in its own database, as the peer minted it). */
function peerTokenHeld(server: TestServer, peerId: string): string {
  return readServerDatabase(
    server.dataDir,
    (db) => db.query<{ peer_token: string }, [string]>("SELECT peer_token FROM machines WHERE machine_id = ?").get(peerId)!.peer_token,
  );
}

test("the calls between machines answer in their schemas to the token the peer holds, and only for the machine it names", async () => {
  const [a, b] = await Promise.all([machine("studio"), machine("laptop")]);
  await pair(a, b);
  const asLaptop = (method: string, path: string, body?: unknown) =>
    fetch(a.url + path, {
      method,
      headers: { authorization: `Bearer ${peerTokenHeld(b, "mch-studio")}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const about = { id: "mch-laptop", name: "laptop", os: "linux", url: b.url };
  const beat = await asLaptop("POST", "/v1/machines/peer/heartbeat", { machine: about, cursor: 0 });
  expect(beat.status).toBe(200);
  assertMatchesSchema(HeartbeatAnswer, await beat.json());
  expect((await asLaptop("POST", "/v1/machines/peer/heartbeat", { machine: { ...about, id: "mch-other" }, cursor: 0 })).status).toBe(403);
  const pushed = await asLaptop("PUT", "/v1/machines/peer/changes", {
    entries: [{ namespace: "ui", key: "k", value: 1, timestamp: { wallMs: 1, counter: 0, deviceId: "d" } }],
  });
  expect(pushed.status).toBe(200);
  expect(await pushed.json()).toEqual({ changed: 1 });
  const changes = await asLaptop("GET", "/v1/machines/peer/changes?after=-1");
  expect(changes.status).toBe(200);
  const page = (await changes.json()) as SyncChanges;
  assertMatchesSchema(SyncChanges, page);
  expect(page.entries.map((entry) => [entry.namespace, entry.key, entry.value])).toContainEqual(["ui", "k", 1]);
  const unpaired = await asLaptop("POST", "/v1/machines/peer/unpair");
  expect(unpaired.status).toBe(200);
  assertMatchesSchema(MachineList, await unpaired.json());
  expect((await machinesOf(a)).map((listed) => listed.id)).toEqual(["mch-studio"]);
});

describe("removing a machine", () => {
  test("endpoint 21 removes the peer, revokes its token here and tells it, which forgets this one too", async () => {
    const [a, b] = await Promise.all([machine("studio"), machine("laptop")]);
    await pair(a, b);
    await untilOnline(a, "mch-laptop");
    const removed = await a.json<MachineList>("DELETE", "/v1/machines/mch-laptop");
    expect(removed.status).toBe(200);
    assertMatchesSchema(MachineList, removed.body);
    expect(removed.body.machines.map((listed) => listed.id)).toEqual(["mch-studio"]);
    expect(tokenNames(a)).toEqual([]);
    expect((await machinesOf(b)).map((listed) => listed.id)).toEqual(["mch-laptop"]);
    expect(tokenNames(b)).toEqual([]);
    expect((await eventsOf(a, "machine.deleted")).map((event) => event.payload)).toEqual([{ id: "mch-laptop" }]);
    expect((await eventsOf(b, "machine.deleted")).map((event) => event.payload)).toEqual([{ id: "mch-studio" }]);
  });

  test("the current machine is a 409 and an unknown one a 404", async () => {
    const a = await machine("studio");
    expect((await a.json("DELETE", "/v1/machines/mch-studio")).status).toBe(409);
    const unknown = await a.json<{ error: string }>("DELETE", "/v1/machines/mch-nobody");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("no machine mch-nobody is paired with this one");
  });

  test("a peer that is off when removed is removed here all the same", async () => {
    const [a, b] = await Promise.all([machine("studio"), machine("laptop")]);
    await pair(a, b);
    await untilOnline(a, "mch-laptop");
    await b.server.stop();
    const removed = await a.json<MachineList>("DELETE", "/v1/machines/mch-laptop");
    expect(removed.status).toBe(200);
    expect(removed.body.machines.map((listed) => listed.id)).toEqual(["mch-studio"]);
  });
});

describe("presence", () => {
  test("a peer that stops goes offline (machine.updated) and comes back online when it starts again on its port", async () => {
    const [a, b] = await Promise.all([machine("studio"), machine("laptop")]);
    await pair(a, b);
    await untilOnline(a, "mch-laptop");
    const port = b.server.port;
    await b.server.stop();
    await untilOnline(a, "mch-laptop", false);
    const offline = (await eventsOf(a, "machine.updated")).map((event) => event.payload as Machine).filter((listed) => listed.id === "mch-laptop");
    expect(offline.at(-1)).toMatchObject({ online: false });

    const again = await machine("laptop", { dataDir: b.dataDir, port });
    await untilOnline(again, "mch-studio");
    await untilOnline(a, "mch-laptop");
  });
});
