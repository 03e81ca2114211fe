/** Paged lists with many records: `GET /v1/projects` (`projects`) and `GET /v1/sessions` (`sessions`). */
import { inParallel, nextLink, scratchProject } from "../lib/atrium.ts";
import { measurement } from "../lib/measurement.ts";
import { below } from "../lib/report.ts";
import { summarize, timed } from "../lib/stats.ts";

export const projectList = measurement({
  key: "projects",
  title: "GET /v1/projects with 1,000 projects",
  seed: {
    what: "1,000 scratch projects made through the API, each with a folder, a location row and a project.created event.",
    async run(bench) {
      const atrium = await bench.atrium();
      for (let index = 0; index < 1_000; index++) await scratchProject(atrium, `Project ${index}`);
      return { atrium, bodyKiB: (await atrium.get("/v1/projects?limit=50")).body.byteLength / 1024 };
    },
  },
  action: {
    what: "200 sequential GET /v1/projects?limit=50, each timed to the last byte of the body, read as bytes.",
    run: async ({ atrium }) => summarize(await atrium.timeGets(200, () => "/v1/projects?limit=50")),
  },
  baseline: { what: "none: the target is absolute." },
  rounds: { warmup: 1, measured: 1 },
  figures: ({ action: [latency] }, { bodyKiB }) => [
    { label: "page of 50 p50", value: latency!.p50, unit: "ms", target: below(5) },
    { label: "page of 50 p99", value: latency!.p99, unit: "ms" },
    { label: "body size", value: bodyKiB, unit: "KiB" },
  ],
});

/** `word` with the letters whose bit is set in `mask` in capitals: one of its 2^length casings (the server keeps 64 pages). */
export const casingOf = (word: string, mask: number) => [...word].map((letter, index) => (mask & (1 << index) ? letter.toUpperCase() : letter)).join("");

export const sessionList = measurement({
  key: "sessions",
  title: "GET /v1/sessions?limit=50 with 10,000 sessions",
  seed: {
    what: "10,000 echo sessions in one scratch project, made through the API 8 at a time.",
    async run(bench) {
      const atrium = await bench.atrium();
      const projectId = await scratchProject(atrium);
      const { ms } = await timed(() => inParallel(10_000, () => atrium.call(201, "POST", "/v1/sessions", { projectId, harnessId: "echo" })));
      const secondPage = nextLink((await fetch(`${atrium.url}/v1/sessions?limit=50`, { headers: atrium.headers })).headers.get("link"));
      if (!secondPage) throw new Error("the first page of sessions has no Link to the next");
      return { atrium, secondPage, seedSeconds: ms / 1000 };
    },
  },
  action: {
    what:
      "1,000 sequential GETs, each timed to the last byte, of the first page of 50, of the second (from the first's Link), of a " +
      "search (`q`) finding every session in a casing of 'session' the server has not kept (it keeps 64 pages; the casings go round " +
      "128), and of a search no title holds (a scan of the whole table).",
    run: async ({ atrium, secondPage }, round) => ({
      first: summarize(await atrium.timeGets(1_000, () => "/v1/sessions?limit=50")),
      second: summarize(await atrium.timeGets(1_000, () => secondPage)),
      finding: summarize(await atrium.timeGets(1_000, (request) => `/v1/sessions?limit=50&q=${casingOf("session", request % 128)}`)),
      findingNone: summarize(await atrium.timeGets(1_000, (request) => `/v1/sessions?limit=50&q=nothing-${round}-${request}`)),
    }),
  },
  baseline: { what: "none: the target is absolute (issue 13: with 10,000 sessions, a page of 50 under 2 ms)." },
  rounds: { warmup: 1, measured: 1 },
  figures: ({ action: [pages] }, { seedSeconds }) => [
    { label: "first page of 50, p50", value: pages!.first.p50, unit: "ms", target: below(2) },
    { label: "first page of 50, p99", value: pages!.first.p99, unit: "ms" },
    { label: "second page of 50, p50", value: pages!.second.p50, unit: "ms", target: below(2) },
    { label: "a search finding every session, first page of 50, p50 (not kept)", value: pages!.finding.p50, unit: "ms" },
    { label: "a search finding none (all 10,000 read), p50", value: pages!.findingNone.p50, unit: "ms" },
    { label: "making the sessions", value: seedSeconds, unit: "s" },
  ],
});
