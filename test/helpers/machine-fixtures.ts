import { expect } from "bun:test";
import { MachineList, PairingCode, Machine } from "../../src/schemas/machines.ts";
import type { SyncNamespace } from "../../src/schemas/sync.ts";
import { until } from "./poll.ts";
import { assertMatchesSchema } from "./schema-assert.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "./test-server.ts";
import { mergeOptions } from "./test-server.ts";

/** Quick health calls and a short backoff: a stopped peer is noticed in a fraction of a second. */
export const FAST_MACHINES = { heartbeatMs: 100, maxBackoffMs: 400, requestTimeoutMs: 2_000, pairTimeoutMs: 5_000 };

/** A real server on a loopback port with a machine id of its own (two on one host would share the OS's). */
export function startMachine(name: string, options: TestServerOptions = {}): Promise<TestServer> {
  return startTestServer(
    mergeOptions<TestServerOptions>({ config: { machineId: `mch-${name}`, machineName: name }, tuning: { modules: { machines: FAST_MACHINES } } }, options),
  );
}

export async function pairingCode(machine: TestServer): Promise<string> {
  const made = await machine.json<PairingCode>("POST", "/v1/machines/pairing-codes");
  expect(made.status).toBe(201);
  assertMatchesSchema(PairingCode, made.body);
  return made.body.code;
}

/** Pairs `joiner` with `host` the way a person does: a code made on one, typed into the other. */
export async function pair(host: TestServer, joiner: TestServer): Promise<Machine> {
  const code = await pairingCode(host);
  const paired = await joiner.json<Machine>("POST", "/v1/machines/pair", { url: host.url, code });
  expect(paired.status).toBe(201);
  assertMatchesSchema(Machine, paired.body);
  return paired.body;
}

export async function machinesOf(machine: TestServer): Promise<Machine[]> {
  const listed = await machine.json<MachineList>("GET", "/v1/machines");
  expect(listed.status).toBe(200);
  assertMatchesSchema(MachineList, listed.body);
  return listed.body.machines;
}

/** Waits until `machine` lists `peerId` with `online` as given. */
export function untilOnline(machine: TestServer, peerId: string, online = true): Promise<Machine[]> {
  return until(
    () => machinesOf(machine),
    (machines) => machines.some((listed) => listed.id === peerId && listed.online === online),
  );
}

/** Waits until every machine lists every other one online (and maybe more). */
export async function allOnline(machines: TestServer[]): Promise<void> {
  for (const listing of machines) {
    await until(
      () => machinesOf(listing),
      (listed) => listed.filter((entry) => entry.online).length >= machines.length,
    );
  }
}

export async function namespaceOf(machine: TestServer, namespace: string): Promise<SyncNamespace["entries"]> {
  const read = await machine.json<SyncNamespace>("GET", `/v1/sync/${namespace}`);
  expect(read.status).toBe(200);
  return read.body.entries;
}

/** The machines a test starts, stopped after it in reverse: one started again on another's data dir stops before that dir is removed. */
export class Fleet {
  private readonly running: TestServer[] = [];

  async start(name: string, options: TestServerOptions = {}): Promise<TestServer> {
    const started = await startMachine(name, options);
    this.running.push(started);
    return started;
  }

  async stopAll(): Promise<void> {
    for (const machine of this.running.splice(0).reverse()) await machine.stop();
  }
}
