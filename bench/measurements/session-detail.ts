import { streamingAgent } from "../lib/agents.ts";
import { conversationPages, newSession, runTurns, scratchProject } from "../lib/atrium.ts";
import { measurement } from "../lib/measurement.ts";
import { below } from "../lib/report.ts";
import { medianOf, ratio, summarize, timed } from "../lib/stats.ts";

/** Each turn adds two items: the prompt and the agent's one-chunk reply. */
const TURNS = 5_000;
const ROUNDS = 1_000;

export const sessionDetail = measurement({
  key: "detail",
  title: "GET /v1/sessions/{id} pages, 10,000 items",
  seed: {
    what:
      `one session of bench/workers/streaming-agent.ts given ${TURNS.toLocaleString("en-US")} prompts of ~120 characters through the ` +
      "API, each answered with one 600-character chunk: 10,000 items made through the same code as any session.",
    async run(bench) {
      const agent = streamingAgent(bench.tempDir("detail"));
      const atrium = await bench.atrium({ agent });
      const sessionId = await newSession(atrium, await scratchProject(atrium), agent.harness);
      const prompts = Array.from({ length: TURNS }, (_, index) => `reply size=600 n=${index} `.padEnd(120, "lorem ipsum "));
      const { ms } = await timed(() => runTurns(atrium, sessionId, prompts, 180_000));
      const pageKiB = (await atrium.get(`/v1/sessions/${sessionId}?limit=50`)).body.byteLength / 1024;
      // Every page's `before` cursor, walked back from the newest page; together they must hold every item.
      const cursors: string[] = [];
      let items = 0;
      for await (const page of conversationPages(atrium, sessionId, 50)) {
        items += page.conversation.length;
        if (page.before) cursors.push(page.before);
      }
      if (items !== TURNS * 2) throw new Error(`the pages held ${items} items, not ${TURNS * 2}`);
      return { atrium, sessionId, cursors, seedSeconds: ms / 1000, pageKiB };
    },
  },
  action: {
    what:
      `${ROUNDS.toLocaleString("en-US")} rounds of GET /v1/sessions/{id}?limit=50 (the newest page) and the same with before= (the ` +
      "199 cursors 37 apart, so near and far pages alike), sequential, each timed to the last byte, read as bytes.",
    async run({ atrium, sessionId, cursors }) {
      const times = { newest: [] as number[], older: [] as number[], health: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const requests = [
          { path: `/v1/sessions/${sessionId}?limit=50`, into: times.newest },
          { path: `/v1/sessions/${sessionId}?limit=50&before=${cursors[(round * 37) % cursors.length]}`, into: times.older },
          { path: "/v1/health", into: times.health },
        ];
        // In rotating order, so that none always follows another.
        for (let turn = 0; turn < requests.length; turn++) {
          const { path, into } = requests[(round + turn) % requests.length]!;
          into.push((await atrium.get(path)).ms);
        }
      }
      return { newest: summarize(times.newest), older: summarize(times.older), health: summarize(times.health) };
    },
  },
  baseline: { what: "GET /v1/health in the same rounds, in rotating order with the pages." },
  rounds: { warmup: 1, measured: 1 },
  figures({ action }, { seedSeconds, pageKiB }) {
    const [newest, older, health] = [medianOf(action, (r) => r.newest.p50), medianOf(action, (r) => r.older.p50), medianOf(action, (r) => r.health.p50)];
    return [
      { label: `time to make the 10,000 items through the server (${TURNS.toLocaleString("en-US")} turns)`, value: seedSeconds, unit: "s" },
      { label: "newest page p50", value: newest, unit: "ms", target: below(10) },
      { label: "newest page p99", value: medianOf(action, (r) => r.newest.p99), unit: "ms" },
      { label: "older page (before=) p50", value: older, unit: "ms", target: below(10) },
      { label: "older page p99", value: medianOf(action, (r) => r.older.p99), unit: "ms" },
      { label: "health p50, same rounds (baseline)", value: health, unit: "ms" },
      { label: "ratio newest page p50 / health p50", value: ratio(newest, health), unit: "ratio" },
      { label: "ratio older page p50 / health p50", value: ratio(older, health), unit: "ratio" },
      { label: "page body size", value: pageKiB, unit: "KiB" },
    ];
  },
});
