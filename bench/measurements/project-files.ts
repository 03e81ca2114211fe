/**
 * A project's files (issue 38): finding a file by name as a phone's quick-open types into it, searching
 * by content against ripgrep run directly with the server's own arguments, and opening a large file
 * against reading it in the bench's own process and with `cat`. Every tree is made of seeded words.
 */
import { join } from "node:path";
import { ripgrepCommand } from "../../src/project-files/file-search.ts";
import { folderProject } from "../lib/atrium.ts";
import { committedRepository } from "../lib/git-repository.ts";
import { measurement, type Bench } from "../lib/measurement.ts";
import { below } from "../lib/report.ts";
import { seededRandom } from "../lib/seeded-random.ts";
import { medianOf, medianOfRounds, ratio, summarize, timeEach } from "../lib/stats.ts";

type Random = () => number;
const WORDS = (
  "server client router session project store event stream render widget button layout parser schema module config logger worker socket agent " +
  "plugin search index table cache queue terminal editor folder file token auth update release bench test fixture helper util core"
).split(" ");
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** A git repository of `files` committed by git fast-import and checked out: its folder. */
function repository(bench: Bench, purpose: string, count: number, files: Iterable<{ path: string; text: string }>): string {
  const folder = join(bench.tempDir(purpose), "repo");
  bench.log(`  generating ${count.toLocaleString("en")} files ...`);
  committedRepository(folder, files);
  return folder;
}

/** A server with a project made of `folder` through the API, and the base of its files routes. */
async function projectOf(bench: Bench, folder: string) {
  const atrium = await bench.atrium();
  return { atrium, files: `/v1/projects/${(await folderProject(atrium, folder)).id}/files` };
}

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
      // Each file holds its own path as a line.
      const folder = repository(
        bench,
        "file-search",
        FILES,
        generatedPaths(random).map((path) => ({ path, text: `${path}\n` })),
      );
      const { atrium, files } = await projectOf(bench, folder);
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

const CONTENT_FILES = Number(process.env.BENCH_CONTENT_FILES ?? 10_000);
const LINES_PER_FILE = 40;
/** Content searches a round makes. */
const CONTENT_SEARCHES = 20;
/** Identifiers are a word and a number below this: each appears in about FILES × LINES_PER_FILE × 6 / (words × NUMBERS) lines. */
const NUMBERS = 1000;
const identifier = (random: Random) => `${pick(random, WORDS)}${Math.floor(random() * NUMBERS)}`;

function* sourceFiles(random: Random): Generator<{ path: string; text: string }> {
  const id = () => identifier(random);
  for (let file = 0; file < CONTENT_FILES; file++) {
    const lines = Array.from({ length: LINES_PER_FILE }, () => `  const ${id()} = ${id()}(${id()}, ${id()}.${id()}); // ${id()}`);
    yield { path: `src/${pick(random, WORDS)}/${pick(random, WORDS)}-${file}.ts`, text: `${lines.join("\n")}\n` };
  }
}

export const contentSearch = measurement({
  key: "content-search",
  title: `GET /v1/projects/{id}/files/search?mode=content on ${CONTENT_FILES.toLocaleString("en")} files, against ripgrep run directly`,
  seed: {
    what:
      `a git repository of ${CONTENT_FILES.toLocaleString("en")} seeded TypeScript-like files (${LINES_PER_FILE} lines each, six identifiers a line: a word and a number ` +
      `below ${NUMBERS}), committed by git fast-import and checked out, and a project made of it through the API.`,
    async run(bench) {
      const random = seededRandom(3838);
      const folder = repository(bench, "content-search", CONTENT_FILES, sourceFiles(random));
      if (!Bun.which("rg")) throw new Error("ripgrep (rg) is not on the PATH: the server would not use it, and there is no baseline");
      const { atrium, files } = await projectOf(bench, folder);
      const queries = Array.from({ length: CONTENT_SEARCHES }, () => identifier(random));
      return { atrium, folder, base: `${files}/search?mode=content&limit=50&q=`, queries };
    },
  },
  action: {
    what: `${CONTENT_SEARCHES} sequential content searches (an identifier, in any case; first page of 50, timed to the last byte).`,
    run: ({ atrium, base, queries }) => timeEach(CONTENT_SEARCHES, (index) => atrium.get(`${base}${encodeURIComponent(queries[index]!)}`)),
  },
  baseline: {
    what: "the same searches by ripgrep in the same folder with the server's arguments, its whole output read, taking turns with the action.",
    run: ({ folder, queries }) =>
      timeEach(CONTENT_SEARCHES, async (index) => {
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

const BYTES = 5 * 1024 * 1024;
/** Opens a round makes, of each kind. */
const OPENS = 10;
const NAME = "large.log";

/** About `BYTES` of log-like lines of seeded words. */
function largeText(random: Random): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < BYTES; line++) {
    const text = `${String(line).padStart(7, "0")} INFO ${Array.from({ length: 12 }, () => pick(random, WORDS)).join(" ")}\n`;
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
      await Bun.write(file, largeText(seededRandom(385)));
      const { atrium, files } = await projectOf(bench, folder);
      return { atrium, file, path: `${files}/content?path=${NAME}` };
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
