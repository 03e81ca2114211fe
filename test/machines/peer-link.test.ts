import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { SyncNamespace } from "../../src/schemas/sync.ts";
import { lockDatabase, logSays } from "../helpers/locked-database.ts";
import { allOnline, Fleet, namespaceOf, pair } from "../helpers/machine-fixtures.ts";
import { until } from "../helpers/poll.ts";
import type { TestServer, TestServerOptions } from "../helpers/test-server.ts";

const fleet = new Fleet();
afterEach(() => fleet.stopAll());
const machine = (name: string, options?: TestServerOptions) => fleet.start(name, options);

const at = (wallMs: number, deviceId: string) => ({ wallMs, counter: 0, deviceId });

async function put(machine: TestServer, namespace: string, key: string, value: unknown, timestamp: ReturnType<typeof at>): Promise<void> {
  const written = await machine.json<SyncNamespace>("PUT", `/v1/sync/${namespace}`, { entries: [{ key, value, timestamp }] });
  expect(written.status).toBe(200);
}

/** Waits until the namespace reads the same on every machine and holds what `done` wants; answers it. */
async function converged(machines: TestServer[], namespace: string, done: (entries: SyncNamespace["entries"]) => boolean): Promise<SyncNamespace["entries"]> {
  const all = await until(
    () => Promise.all(machines.map((listing) => namespaceOf(listing, namespace))),
    (read) => read.every((entries) => JSON.stringify(entries) === JSON.stringify(read[0])) && done(read[0]!),
    15_000,
  );
  return all[0]!;
}

const entryOf = (entries: SyncNamespace["entries"], key: string) => entries.find((entry) => entry.key === key);

describe("replicated sync namespaces", () => {
  test("a change on one machine reaches its peers, and one relayed through a peer reaches a machine not paired with its writer", async () => {
    const [a, b, c] = await Promise.all([machine("studio"), machine("laptop"), machine("tablet")]);
    // A chain: laptop and tablet know only the studio.
    await pair(a, b);
    await pair(a, c);
    await allOnline([a, b]);
    await put(b, "ui", "theme", "dark", at(1_000, "phone"));
    const entries = await converged([a, b, c], "ui", (read) => read.length === 1);
    expect(entries).toEqual([{ key: "theme", value: "dark", timestamp: at(1_000, "phone"), deleted: false }]);
  });

  test("three machines write conflicting keys while one is stopped: once it is back all three read the same, and no newer write is lost", async () => {
    const [a, b, c] = await Promise.all([machine("studio"), machine("laptop"), machine("tablet")]);
    await pair(a, b);
    await pair(a, c);
    await pair(b, c);
    await allOnline([a, b, c]);
    await put(c, "ui", "k1", "tablet-50", at(50, "tablet"));
    await put(c, "ui", "k2", "tablet-50", at(50, "tablet"));
    await converged([a, b, c], "ui", (read) => read.length === 2);

    const port = c.server.port;
    await c.server.stop();
    await put(a, "ui", "k1", "studio-100", at(100, "studio"));
    await put(b, "ui", "k1", "laptop-200", at(200, "laptop"));
    await put(b, "ui", "k2", "laptop-250", at(250, "laptop"));
    await put(a, "ui", "k2", null, at(260, "studio"));
    await put(a, "layout", "panes", { left: ["s1"], right: [] }, at(300, "studio"));
    await put(b, "ui", "k3", "laptop-300", at(300, "laptop"));
    await put(a, "ui", "k3", "studio-300", at(300, "studio"));

    const again = await machine("tablet", { dataDir: c.dataDir, port });
    // Older than what the others wrote meanwhile: it must lose everywhere; the newer one must win everywhere.
    await put(again, "ui", "k1", "tablet-150", at(150, "tablet"));
    await put(again, "ui", "k4", "tablet-400", at(400, "tablet"));

    const ui = await converged(
      [a, b, again],
      "ui",
      (read) => read.length === 4 && entryOf(read, "k4") !== undefined && entryOf(read, "k1")?.value === "laptop-200",
    );
    expect(entryOf(ui, "k1")).toEqual({ key: "k1", value: "laptop-200", timestamp: at(200, "laptop"), deleted: false });
    expect(entryOf(ui, "k2")).toEqual({ key: "k2", value: null, timestamp: at(260, "studio"), deleted: true });
    // Equal wall clock and counter: the device id decides, the same way on every machine.
    expect(entryOf(ui, "k3")).toEqual({ key: "k3", value: "studio-300", timestamp: at(300, "studio"), deleted: false });
    expect(entryOf(ui, "k4")?.value).toBe("tablet-400");
    const layout = await converged([a, b, again], "layout", (read) => read.length === 1);
    expect(layout[0]!.value).toEqual({ left: ["s1"], right: [] });
  });

  test("a machine whose database is locked while its peer writes keeps serving, says so, and catches up once it is free", async () => {
    const [a, b] = await Promise.all([machine("studio"), machine("laptop")]);
    await pair(a, b);
    await allOnline([a, b]);
    const unlock = lockDatabase(join(b.dataDir, "atrium.db"));
    try {
      await put(a, "ui", "theme", "dark", at(1_000, "phone"));
      await logSays(b.dataDir, "a request could not be written");
      expect((await b.json("GET", "/v1/machines")).status).toBe(200);
    } finally {
      unlock();
    }
    const entries = await converged([a, b], "ui", (read) => read.length === 1);
    expect(entries[0]!.value).toBe("dark");
  });
});
