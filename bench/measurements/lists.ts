/** Paged lists with many records: `GET /v1/projects` (`projects`) and `GET /v1/sessions` (`sessions`). */
import { scratchProject, timeGets, type Atrium, inParallel } from "../lib/atrium.ts";
import { measurement, type Bench } from "../lib/measurement.ts";
import { summarize, type Summary } from "../lib/stats.ts";

async function atriumWith(bench: Bench, seed: (atrium: Atrium) => Promise<void>): Promise<{ atrium: Atrium; seedSeconds: number }> {
  const atrium = await bench.atrium();
  const started = performance.now();
  await seed(atrium);
  return { atrium, seedSeconds: (performance.now() - started) / 1000 };
}

const timed = async (atrium: Atrium, count: number, pathOf: (request: number) => string) =>
  summarize(await timeGets(atrium.url, atrium.headers, count, pathOf));

export const projectList = measurement({
  key: "projects",
  title: "GET /v1/projects with 1,000 projects",
  seed: {
    what: "1,000 scratch projects made through the API, each with a folder, a location row and a project.created event.",
    async run(bench) {
      const { atrium } = await atriumWith(bench, async (atrium) => {
        for (let index = 0; index < 1_000; index++) await scratchProject(atrium, `Project ${index}`);
      });
      const page = await fetch(`${atrium.url}/v1/projects?limit=50`, { headers: atrium.headers });
      return { atrium, bodyKiB: (await page.arrayBuffer()).byteLength / 1024 };
    },
  },
  action: {
    what: "200 sequential GET /v1/projects?limit=50, each timed to the last byte of the body, read as bytes.",
    run: ({ atrium }) => timed(atrium, 200, () => "/v1/projects?limit=50"),
  },
  baseline: { what: "none: the target is absolute." },
  rounds: { warmup: 1, measured: 1 },
  figures: ({ action: [latency] }, { bodyKiB }) => [
    { label: "page of 50 p50", value: latency!.p50, unit: "ms", target: { comparison: "<", value: 5 } },
    { label: "page of 50 p99", value: latency!.p99, unit: "ms" },
    { label: "body size", value: bodyKiB, unit: "KiB" },
  ],
});

/** `word` with the letters whose bit is set in `mask` in capitals: one of its 2^length casings. */
const casingOf = (word: string, mask: number) => [...word].map((letter, index) => (mask & (1 << index) ? letter.toUpperCase() : letter)).join("");

interface SessionPages {
  first: Summary;
  second: Summary;
  finding: Summary;
  findingNone: Summary;
}

export const sessionList = measurement({
  key: "sessions",
  title: "GET /v1/sessions?limit=50 with 10,000 sessions",
  seed: {
    what: "10,000 echo sessions in one scratch project, made through the API 8 at a time.",
    async run(bench) {
      const { atrium, seedSeconds } = await atriumWith(bench, async (atrium) => {
        const projectId = await scratchProject(atrium);
        await inParallel(10_000, async () => {
          await atrium.call(201, "POST", "/v1/sessions", { projectId, harnessId: "echo" });
        });
      });
      const link = (await fetch(`${atrium.url}/v1/sessions?limit=50`, { headers: atrium.headers })).headers.get("link") ?? "";
      const secondPage = /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
      if (!secondPage) throw new Error("the first page of sessions has no Link to the next");
      return { atrium, secondPage, seedSeconds };
    },
  },
  action: {
    what:
      "1,000 sequential GETs, each timed to the last byte, of the first page of 50, of the second (from the first's Link), of a " +
      "search (`q`) finding every session in a casing of 'session' the server has not kept (it keeps 64 pages; the casings go round " +
      "128), and of a search no title holds (a scan of the whole table).",
    run: async ({ atrium, secondPage }, round): Promise<SessionPages> => ({
      first: await timed(atrium, 1_000, () => "/v1/sessions?limit=50"),
      second: await timed(atrium, 1_000, () => secondPage),
      finding: await timed(atrium, 1_000, (request) => `/v1/sessions?limit=50&q=${casingOf("session", request % 128)}`),
      findingNone: await timed(atrium, 1_000, (request) => `/v1/sessions?limit=50&q=nothing-${round}-${request}`),
    }),
  },
  baseline: { what: "none: the target is absolute (issue 13: with 10,000 sessions, a page of 50 under 2 ms)." },
  rounds: { warmup: 1, measured: 1 },
  figures: ({ action: [pages] }, { seedSeconds }) => [
    { label: "first page of 50, p50", value: pages!.first.p50, unit: "ms", target: { comparison: "<", value: 2 } },
    { label: "first page of 50, p99", value: pages!.first.p99, unit: "ms" },
    { label: "second page of 50, p50", value: pages!.second.p50, unit: "ms", target: { comparison: "<", value: 2 } },
    { label: "a search finding every session, first page of 50, p50 (not kept)", value: pages!.finding.p50, unit: "ms" },
    { label: "a search finding none (all 10,000 read), p50", value: pages!.findingNone.p50, unit: "ms" },
    { label: "making the sessions", value: seedSeconds, unit: "s" },
  ],
});
