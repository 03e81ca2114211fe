/** Opening a large file (issue 38) through the content route, against reading it in the bench's own process and with `cat`. */
import { join } from "node:path";
import { measurement } from "../lib/measurement.ts";
import { seededRandom } from "../lib/seeded-random.ts";
import { medianOfRounds, ratio, timeEach } from "../lib/stats.ts";
import { WORDS } from "./file-search.ts";

const BYTES = 5 * 1024 * 1024;
const SEED = 385;
/** Opens a round makes, of each kind. */
const OPENS = 10;
const NAME = "large.log";

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
const timedReads = (read: () => Promise<number>) =>
  timeEach(OPENS, async () => {
    const size = await read();
    if (size < BYTES) throw new Error(`read ${size} bytes of a file of ${BYTES}`);
  });

export const fileOpen = measurement({
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
    run: ({ atrium, path }) => timedReads(async () => (await atrium.get(path)).body.length),
  },
  baseline: {
    what: `${OPENS} reads of the file with Bun.file(…).bytes() in the bench's process, then ${OPENS} with \`cat\` (its whole output read), taking turns with the action.`,
    run: async ({ file }) => ({
      bunFile: await timedReads(async () => (await Bun.file(file).bytes()).length),
      cat: await timedReads(async () => {
        const cat = Bun.spawn(["cat", file], { stdout: "pipe", stderr: "ignore" });
        const size = (await new Response(cat.stdout).arrayBuffer()).byteLength;
        await cat.exited;
        return size;
      }),
    }),
  },
  rounds: { warmup: 1, measured: 5 },
  figures: ({ action, baseline }) => {
    const [route, bunFile, cat] = [action, baseline.map((round) => round.bunFile), baseline.map((round) => round.cat)].map((rounds) => medianOfRounds(rounds));
    return [
      { label: "the content route, whole body, p50", value: route!, unit: "ms" },
      { label: "the content route, whole body, p95", value: medianOfRounds(action, 95), unit: "ms" },
      { label: "Bun.file(…).bytes() (baseline), p50", value: bunFile!, unit: "ms" },
      { label: "cat (baseline), p50", value: cat!, unit: "ms" },
      { label: "the content route against Bun.file", value: ratio(route!, bunFile!), unit: "ratio" },
      { label: "the content route against cat", value: ratio(route!, cat!), unit: "ratio" },
    ];
  },
});
