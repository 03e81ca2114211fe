import { join } from "node:path";
import type { Atrium } from "../lib/atrium.ts";
import { measurement } from "../lib/measurement.ts";
import { below } from "../lib/report.ts";
import { ratio, summarize, timed } from "../lib/stats.ts";

const SERVERS = 200;
/** Of the 200, stdio servers whose probes stay running (they answer after a minute); the rest HTTP servers that never answer. */
const SLOW_STDIO_SERVERS = 50;
const PARALLEL_PROBES = 50;
/** The i-th of the 50 answers initialize after 500 + 20·i ms: the slowest after 1,480 ms. */
const delayOf = (index: number) => 500 + 20 * index;

const FIXTURE = join(import.meta.dir, "..", "fixtures", "minimal-mcp-server.ts");
const stdioServer = (name: string, delayMs: number, enabled = true) => ({
  name,
  transport: "stdio",
  command: process.execPath,
  args: [FIXTURE, "--delay", String(delayMs)],
  enabled,
});

const timeList = async (atrium: Atrium) => summarize(await atrium.timeGets(200, () => "/v1/mcps"));

/** POST /v1/mcps/{id}/probe answers when its probe has ended: all of `ids` at once, timed. */
async function timeProbes(atrium: Atrium, ids: string[]): Promise<number> {
  const probed = await timed(() => Promise.all(ids.map((id) => atrium.call<{ connectionState: string }>(200, "POST", `/v1/mcps/${id}/probe`))));
  if (probed.value.some((server) => server.connectionState !== "connected")) throw new Error("a probe did not connect");
  return probed.ms;
}

export const mcpServers = measurement({
  key: "mcps",
  title: "GET /v1/mcps with 200 servers while probed; 50 stdio probes at once",
  seed: {
    what:
      `two servers. One timed 200 GET /v1/mcps (after 200 unmeasured) empty, then got ${SERVERS} MCP servers: ${SERVERS - SLOW_STDIO_SERVERS} ` +
      `HTTP servers that never answer and ${SLOW_STDIO_SERVERS} stdio servers that answer after a minute, so their probes stay running. ` +
      `The other got ${PARALLEL_PROBES} disabled stdio servers (bench/fixtures/minimal-mcp-server.ts) answering after ` +
      `${delayOf(0)}–${delayOf(PARALLEL_PROBES - 1)} ms.`,
    async run(bench) {
      const silent = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => undefined) });
      bench.defer(() => silent.stop(true));
      const [listing, probing] = [await bench.atrium(), await bench.atrium()];
      await timeList(listing);
      // The list with no servers, timed before they are added.
      const empty = await timeList(listing);
      for (let index = 0; index < SERVERS; index++) {
        const remote = { name: `remote-${index}`, transport: "http", url: `http://127.0.0.1:${silent.port}/mcp` };
        await listing.call(201, "POST", "/v1/mcps", index < SLOW_STDIO_SERVERS ? stdioServer(`slow-${index}`, 60_000) : remote);
      }
      const probeIds: string[] = [];
      for (let index = 0; index < PARALLEL_PROBES; index++) {
        probeIds.push((await probing.call<{ id: string }>(201, "POST", "/v1/mcps", stdioServer(`parallel-${index}`, delayOf(index), false))).id);
      }
      return { listing, empty, probing, probeIds };
    },
  },
  action: {
    what: `200 sequential GET /v1/mcps with the ${SERVERS} servers while their probes run, each timed to the last byte; all ${PARALLEL_PROBES} stdio servers probed at once.`,
    run: async (world) => ({
      list: await timeList(world.listing),
      probingWhileListed: (await world.listing.call<{ servers: { connectionState: string }[] }>(200, "GET", "/v1/mcps")).servers.filter(
        (server) => server.connectionState === "connecting",
      ).length,
      allAtOnceMs: await timeProbes(world.probing, world.probeIds),
    }),
  },
  baseline: {
    what: "the same list with no servers (timed in the seed); the slowest stdio server probed alone.",
    run: async (world) => ({ slowestAloneMs: await timeProbes(world.probing, [world.probeIds.at(-1)!]) }),
  },
  rounds: { warmup: 1, measured: 1 },
  figures: ({ action: [full], baseline: [alone] }, { empty }) => [
    { label: `list p50, ${SERVERS} servers, probes running`, value: full!.list.p50, unit: "ms", target: below(5) },
    { label: "list p50, no servers (baseline)", value: empty.p50, unit: "ms" },
    { label: "list p50 ratio to baseline", value: ratio(full!.list.p50, empty.p50), unit: "ratio" },
    { label: "list p99, probes running", value: full!.list.p99, unit: "ms" },
    { label: "servers still probing after the list", value: full!.probingWhileListed, unit: "count" },
    { label: "slowest stdio server probed alone", value: alone!.slowestAloneMs, unit: "ms" },
    { label: `${PARALLEL_PROBES} stdio probes at once`, value: full!.allAtOnceMs, unit: "ms" },
    { label: "at once minus the slowest alone", value: full!.allAtOnceMs - alone!.slowestAloneMs, unit: "ms", target: below(1_000) },
  ],
});
