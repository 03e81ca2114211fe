/**
 * Opening a large file (issue 38): `GET /v1/projects/{id}/files/content?path=` of a 5 MB text file, timed to
 * the whole body, set against reading the same file in the bench's own process (`Bun.file`) and with `cat`,
 * in the same run, as ratios: what the route (its checks, the HTTP hop) adds to reading the bytes.
 */
import { join } from "node:path";
import { timedGet, type Atrium } from "../lib/atrium.ts";
import { measurement } from "../lib/measurement.ts";
import { seededRandom } from "../lib/seeded-random.ts";
import { median, ratio, summarize } from "../lib/stats.ts";
import { WORDS } from "./file-search.ts";

const BYTES = 5 * 1024 * 1024;
const SEED = 385;
/** Opens a round makes, of each kind. */
const OPENS = 10;
const NAME = "large.log";

interface World {
  atrium: Atrium;
  file: string;
  path: string;
}

/** The baseline's reads of the file, in ms. */
interface Reads {
  bunFile: number[];
  cat: number[];
}

/** About `BYTES` of log-like lines of seeded words. */
function largeText(random: () => number): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < BYTES; line++) {
    const words = Array.from({ length: 12 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
    const text = `${String(line).padStart(7, "0")} INFO ${words}\n`;
    lines.push(text);
    size += text.length;
  }
  return lines.join("");
}

/** `read`'s time in ms, OPENS times over; each read must give the whole file. */
async function timedReads(read: () => Promise<number>): Promise<number[]> {
  const times: number[] = [];
  for (let open = 0; open < OPENS; open++) {
    const started = performance.now();
    const size = await read();
    times.push(performance.now() - started);
    if (size < BYTES) throw new Error(`read ${size} bytes of a file of ${BYTES}`);
  }
  return times;
}

export const fileOpen = measurement<World, number[], Reads>({
  key: "file-open",
  title: "GET /v1/projects/{id}/files/content of a 5 MB file, against Bun.file and cat",
  seed: {
    what: `a folder holding one text file of ${(BYTES / 1024 / 1024).toFixed(0)} MiB (log-like lines of seeded words), and a project made of it through the API.`,
    async run(bench) {
      const folder = bench.tempDir("file-open");
      const file = join(folder, NAME);
      await Bun.write(file, largeText(seededRandom(SEED)));
      const atrium = await bench.atrium();
      const project = await atrium.call<{ id: string }>(201, "POST", "/v1/projects", { folderPath: folder });
      return { atrium, file, path: `/v1/projects/${project.id}/files/content?path=${NAME}` };
    },
  },
  action: {
    what: `${OPENS} sequential GETs of the file through the content route, each timed to the last byte of its body.`,
    run: (world) => timedReads(async () => (await timedGet(world.atrium.url, world.atrium.headers, world.path)).body.length),
  },
  baseline: {
    what: `${OPENS} reads of the file with Bun.file(…).bytes() in the bench's process, then ${OPENS} with \`cat\` (its whole output read), taking turns with the action.`,
    run: async (world) => ({
      bunFile: await timedReads(async () => (await Bun.file(world.file).bytes()).length),
      cat: await timedReads(async () => {
        const cat = Bun.spawn(["cat", world.file], { stdout: "pipe", stderr: "ignore" });
        const size = (await new Response(cat.stdout).arrayBuffer()).byteLength;
        await cat.exited;
        return size;
      }),
    }),
  },
  rounds: { warmup: 1, measured: 5 },
  figures: ({ action, baseline }) => {
    const p50 = (rounds: number[][]) => median(rounds.map((round) => summarize(round).p50));
    const route = p50(action);
    const bunFile = p50(baseline.map((round) => round.bunFile));
    const cat = p50(baseline.map((round) => round.cat));
    return [
      { label: "the content route, whole body, p50", value: route, unit: "ms" },
      { label: "the content route, whole body, p95", value: median(action.map((round) => summarize(round).p95)), unit: "ms" },
      { label: "Bun.file(…).bytes() (baseline), p50", value: bunFile, unit: "ms" },
      { label: "cat (baseline), p50", value: cat, unit: "ms" },
      { label: "the content route against Bun.file", value: ratio(route, bunFile), unit: "ratio" },
      { label: "the content route against cat", value: ratio(route, cat), unit: "ratio" },
    ];
  },
});
