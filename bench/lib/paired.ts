import { startAtrium, type Atrium } from "./atrium.ts";
import type { Bench } from "./measurement.ts";
import { freePort, until } from "./processes.ts";

/** A server with a data dir and a port of its own that outlive its process, so that it comes back where its peer expects it. */
export function pairedServer(bench: Bench, machineId: string) {
  const server = { home: bench.tempDir(machineId), port: freePort(), machineId, atrium: undefined as unknown as Atrium };
  bench.defer(() => server.atrium?.stop());
  /** Resolves once it prints `listening on`, which is also when it starts calling its peers. */
  const start = async (harness?: string) => {
    server.atrium = await startAtrium(bench.binary, {
      home: server.home,
      port: server.port,
      config: { machineId, machineName: `bench ${machineId}` },
      harness,
    });
  };
  return Object.assign(server, { start });
}

export type PairedServer = ReturnType<typeof pairedServer>;

/** Until each lists the other as online. */
export async function awaitOnline(a: PairedServer, b: PairedServer): Promise<void> {
  type Machines = { machines: { id: string; online: boolean }[] };
  const sees = async (from: PairedServer, peer: PairedServer) =>
    (await from.atrium.call<Machines>(200, "GET", "/v1/machines")).machines.some((m) => m.id === peer.machineId && m.online);
  await until(async () => ((await sees(a, b)) && (await sees(b, a)) ? true : undefined), 15_000, "both servers listing each other online");
}

/** Two servers started and paired by a code (B joins A), listing each other online. */
export async function pairTwo(bench: Bench, harness?: string): Promise<{ a: PairedServer; b: PairedServer }> {
  const [a, b] = [pairedServer(bench, "mch-bench-a"), pairedServer(bench, "mch-bench-b")];
  await a.start(harness);
  await b.start(harness);
  const { code } = await a.atrium.call<{ code: string }>(201, "POST", "/v1/machines/pairing-codes");
  await b.atrium.call(201, "POST", "/v1/machines/pair", { url: a.atrium.url, code });
  await awaitOnline(a, b);
  return { a, b };
}
