/** Searching files by content (issue 38), against ripgrep run directly with the server's own arguments: what the server adds on top of rg. */
import { join } from "node:path";
import { ripgrepCommand } from "../../src/project-files/file-search.ts";
import { committedRepository } from "../lib/git-repository.ts";
import { measurement } from "../lib/measurement.ts";
import { seededRandom } from "../lib/seeded-random.ts";
import { medianOfRounds, ratio, timeEach } from "../lib/stats.ts";
import { WORDS } from "./file-search.ts";

const FILES = Number(process.env.BENCH_CONTENT_FILES ?? 10_000);
const LINES_PER_FILE = 40;
const SEED = 3838;
/** Searches a round makes. */
const SEARCHES = 20;
/** Identifiers are a word and a number below this: each appears in about FILES × LINES_PER_FILE × 6 / (words × NUMBERS) lines. */
const NUMBERS = 1000;

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

export const contentSearch = measurement({
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
    run: ({ atrium, base, queries }) => timeEach(SEARCHES, (index) => atrium.get(`${base}${encodeURIComponent(queries[index]!)}`)),
  },
  baseline: {
    what: "the same searches by ripgrep in the same folder with the server's arguments, its whole output read, taking turns with the action.",
    run: ({ folder, queries }) =>
      timeEach(SEARCHES, async (index) => {
        const rg = Bun.spawn(ripgrepCommand(queries[index]!), { cwd: folder, stdout: "pipe", stderr: "ignore" });
        await new Response(rg.stdout).arrayBuffer();
        await rg.exited;
      }),
  },
  rounds: { warmup: 1, measured: 5 },
  figures: ({ action, baseline }) => [
    { label: "a content search, p50", value: medianOfRounds(action), unit: "ms" },
    { label: "a content search, p95", value: medianOfRounds(action, 95), unit: "ms" },
    { label: "ripgrep run directly (baseline), p50", value: medianOfRounds(baseline), unit: "ms" },
    { label: "a content search against ripgrep", value: ratio(medianOfRounds(action), medianOfRounds(baseline)), unit: "ratio" },
  ],
});
