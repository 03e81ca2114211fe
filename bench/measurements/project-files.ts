/**
 * A project's files (issue 38): finding a file by name as a phone's quick-open types into it, in a tree
 * of seeded words. (content-search and file-open were retired in issue 34: docs/performance.md.)
 */
import { join } from "node:path";
import { folderProject } from "../lib/atrium.ts";
import { committedRepository } from "../lib/git-repository.ts";
import { measurement } from "../lib/measurement.ts";
import { below } from "../lib/report.ts";
import { seededRandom } from "../lib/seeded-random.ts";
import { medianOf, summarize } from "../lib/stats.ts";

type Random = () => number;
const WORDS = (
  "server client router session project store event stream render widget button layout parser schema module config logger worker socket agent " +
  "plugin search index table cache queue terminal editor folder file token auth update release bench test fixture helper util core"
).split(" ");
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const FILES = Number(process.env.BENCH_FILES ?? 100_000);
/** Searches a round makes. */
const SEARCHES = 100;
const EXTENSIONS = [".ts", ".tsx", ".md", ".json", ".css", ".go", ".py", ".rs"];
/** Files per folder on average, about what large repositories have (the Linux kernel: 15). */
const FILES_PER_FOLDER = 12;

/**
 * A large monorepo's shape: folders 2–5 levels deep named by words (FILES / FILES_PER_FOLDER of them),
 * files of two-word names and an extension spread over them.
 */
function generatedPaths(random: Random): string[] {
  const folders = new Set<string>();
  while (folders.size < FILES / FILES_PER_FOLDER) folders.add(Array.from({ length: 2 + Math.floor(random() * 4) }, () => pick(random, WORDS)).join("/"));
  const pool = [...folders];
  const paths = new Set<string>();
  while (paths.size < FILES)
    paths.add(`${pick(random, pool)}/${pick(random, WORDS)}-${pick(random, WORDS)}${Math.floor(random() * 50)}${pick(random, EXTENSIONS)}`);
  return [...paths];
}

/** What a user types into quick-open: a few letters of a folder and of a file's name, as fuzzy search takes them. */
const quickOpenQueries = (random: Random): string[] =>
  Array.from({ length: SEARCHES }, (_, index) => {
    const word = pick(random, WORDS);
    return index % 2 === 0 ? word.slice(0, 3 + Math.floor(random() * 3)) : `${pick(random, WORDS).slice(0, 2)}${word.slice(0, 4)}`;
  });

export const fileSearch = measurement({
  key: "file-search",
  title: `GET /v1/projects/{id}/files/search?q= by name on a repository of ${FILES.toLocaleString("en")} files`,
  seed: {
    what:
      `a git repository of ${FILES.toLocaleString("en")} seeded paths (about ${FILES_PER_FOLDER} a folder, 2–5 folders deep, two-word names, 8 extensions) committed ` +
      "by git fast-import and checked out, a project made of it through the API, and its first search (which reads `git ls-files`).",
    async run(bench) {
      const random = seededRandom(38);
      const folder = join(bench.tempDir("file-search"), "repo");
      bench.log(`  generating ${FILES.toLocaleString("en")} files ...`);
      // Each file holds its own path as a line.
      committedRepository(
        folder,
        generatedPaths(random).map((path) => ({ path, text: `${path}\n` })),
      );
      const atrium = await bench.atrium();
      const files = `/v1/projects/${(await folderProject(atrium, folder)).id}/files`;
      const base = `${files}/search?limit=50&q=`;
      const first = await atrium.get(`${base}server`);
      const firstHits = (JSON.parse(new TextDecoder().decode(first.body)) as unknown[]).length;
      return { atrium, base, queries: quickOpenQueries(random), firstMs: first.ms, firstHits };
    },
  },
  action: {
    what: `${SEARCHES} sequential searches by name (first page of 50, timed to the last byte), each a few letters of a folder and a name.`,
    run: async ({ atrium, base, queries }) => ({
      search: summarize(await atrium.timeGets(SEARCHES, (request) => `${base}${encodeURIComponent(queries[request]!)}`)),
      health: summarize(await atrium.timeGets(SEARCHES, () => "/v1/health")),
    }),
  },
  baseline: { what: `${SEARCHES} GET /v1/health right after each round's searches (the floor of a request).` },
  rounds: { warmup: 1, measured: 5 },
  figures: ({ action }, world) => [
    { label: "search by name after the first, p50", value: medianOf(action, (round) => round.search.p50), unit: "ms", target: below(50) },
    { label: "search by name after the first, p95", value: medianOf(action, (round) => round.search.p95), unit: "ms" },
    { label: "GET /v1/health (baseline), p50", value: medianOf(action, (round) => round.health.p50), unit: "ms" },
    { label: `the first search (reads git ls-files; ${world.firstHits} hits on its page)`, value: world.firstMs, unit: "ms" },
  ],
});
