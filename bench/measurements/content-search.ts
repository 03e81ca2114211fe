/**
 * Searching files by content (issue 38): `GET /v1/projects/{id}/files/search?mode=content&q=` on a generated
 * repository of BENCH_CONTENT_FILES (10,000) source-like files, set against ripgrep run directly with the
 * server's own arguments in the same folder, in the same run, as a ratio: what the server adds on top of rg.
 */
import { join } from "node:path";
import { ripgrepCommand } from "../../src/project-files/file-search.ts";
import { timedGet, type Atrium } from "../lib/atrium.ts";
import { committedRepository } from "../lib/git-repository.ts";
import { measurement } from "../lib/measurement.ts";
import { seededRandom } from "../lib/seeded-random.ts";
import { median, ratio, summarize } from "../lib/stats.ts";
import { WORDS } from "./file-search.ts";

const FILES = Number(process.env.BENCH_CONTENT_FILES ?? 10_000);
const LINES_PER_FILE = 40;
const SEED = 3838;
/** Searches a round makes. */
const SEARCHES = 20;
/** Identifiers are a word and a number below this: each appears in about FILES × LINES_PER_FILE × 6 / (words × NUMBERS) lines. */
const NUMBERS = 1000;

interface World {
  atrium: Atrium;
  folder: string;
  base: string;
  queries: string[];
}

function* sourceFiles(random: () => number): Generator<{ path: string; text: string }> {
  const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const identifier = () => `${pick()}${Math.floor(random() * NUMBERS)}`;
  for (let file = 0; file < FILES; file++) {
    const lines = Array.from(
      { length: LINES_PER_FILE },
      () => `  const ${identifier()} = ${identifier()}(${identifier()}, ${identifier()}.${identifier()}); // ${identifier()}`,
    );
    yield { path: `src/${pick()}/${pick()}-${file}.ts`, text: `${lines.join("\n")}\n` };
  }
}

/** Each search's time in ms, in order. */
async function timedSearches(queries: string[], search: (q: string) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (const q of queries) {
    const started = performance.now();
    await search(q);
    times.push(performance.now() - started);
  }
  return times;
}

export const contentSearch = measurement<World, number[]>({
  key: "content-search",
  title: `GET /v1/projects/{id}/files/search?mode=content on ${FILES.toLocaleString("en")} files, against ripgrep run directly`,
  seed: {
    what:
      `a git repository of ${FILES.toLocaleString("en")} seeded TypeScript-like files (${LINES_PER_FILE} lines each, six identifiers a line: a word and a number ` +
      `below ${NUMBERS}), committed by git fast-import and checked out, and a project made of it through the API.`,
    async run(bench) {
      const random = seededRandom(SEED);
      const folder = join(bench.tempDir("content-search"), "repo");
      bench.log(`  generating ${FILES.toLocaleString("en")} files ...`);
      committedRepository(folder, sourceFiles(random));
      if (!Bun.which("rg")) throw new Error("ripgrep (rg) is not on the PATH: the server would not use it, and there is no baseline");
      const atrium = await bench.atrium();
      const project = await atrium.call<{ id: string }>(201, "POST", "/v1/projects", { folderPath: folder });
      const queries = Array.from({ length: SEARCHES }, () => `${WORDS[Math.floor(random() * WORDS.length)]}${Math.floor(random() * NUMBERS)}`);
      return { atrium, folder, base: `/v1/projects/${project.id}/files/search?mode=content&limit=50&q=`, queries };
    },
  },
  action: {
    what: `${SEARCHES} sequential content searches (an identifier, in any case; first page of 50, timed to the last byte).`,
    run: (world) => timedSearches(world.queries, (q) => timedGet(world.atrium.url, world.atrium.headers, `${world.base}${encodeURIComponent(q)}`)),
  },
  baseline: {
    what: "the same searches by ripgrep in the same folder with the server's arguments, its whole output read, taking turns with the action.",
    run: (world) =>
      timedSearches(world.queries, async (q) => {
        const rg = Bun.spawn(ripgrepCommand(q), { cwd: world.folder, stdout: "pipe", stderr: "ignore" });
        await new Response(rg.stdout).arrayBuffer();
        await rg.exited;
      }),
  },
  rounds: { warmup: 1, measured: 5 },
  figures: ({ action, baseline }) => {
    const server = median(action.map((round) => summarize(round).p50));
    const direct = median(baseline.map((round) => summarize(round).p50));
    return [
      { label: "a content search, p50", value: server, unit: "ms" },
      { label: "a content search, p95", value: median(action.map((round) => summarize(round).p95)), unit: "ms" },
      { label: "ripgrep run directly (baseline), p50", value: direct, unit: "ms" },
      { label: "a content search against ripgrep", value: ratio(server, direct), unit: "ratio" },
    ];
  },
});
