import { scriptedAgent } from "../lib/agents.ts";
import { conversationPages, newSession, runTurns, scratchProject, type Atrium } from "../lib/atrium.ts";
import { PHONE } from "../lib/browser.ts";
import { consoleWorld, sessionRoute, visit, type ConsoleWorld } from "../lib/console.ts";
import { measurement } from "../lib/measurement.ts";
import { type PaintMark, readPage } from "../lib/paint-probe.ts";
import { below, paintAgainstBaseline } from "../lib/report.ts";
import { medianOf, timed } from "../lib/stats.ts";
import { REPLY_END_TEXT, REPLY_TEXT, TOOL_CALLS_PER_REPLY, TURN_STEPS } from "./console-session-reply.ts";

const REPLIES = 500;

/** Every prompt sent at once, then until the session is idle with every reply whole. */
async function seedTurns(atrium: Atrium, sessionId: string): Promise<void> {
  const prompts = Array.from({ length: REPLIES }, (_, index) => `Turn ${index + 1}: make the upstream retries respect the request deadline.`);
  await runTurns(atrium, sessionId, prompts, 15 * 60_000);
  let replies = 0;
  for await (const page of conversationPages(atrium, sessionId))
    replies += page.conversation.filter((item) => item.role === "assistant" && item.text === REPLY_TEXT).length;
  if (replies !== REPLIES) throw new Error(`seeding left ${replies} whole replies, not ${REPLIES}`);
}

/** One first visit: a fresh context (no cache), `#/sessions/<id>` opened, the probe's notes once `marks` were presented. */
const loadSession = (world: ConsoleWorld, sessionId: string, marks: PaintMark[]) =>
  visit(world, sessionRoute(sessionId), { marks, painted: ["shown"] }, async (page) => {
    const reading = await page.evaluate(readPage);
    const shown = reading.marks.shown!;
    const byThen = reading.requests.filter((request) => request.responseEndMs <= shown.inDomMs!);
    // The frame presenting the newest reply with its tool cards (the empty session: its page); bytes of what had ended by then.
    return {
      paintMs: shown.paintMs,
      textPaintMs: reading.marks.text?.paintMs ?? shown.paintMs,
      readMs: reading.requests.find((request) => request.path === `/v1/sessions/${encodeURIComponent(sessionId)}`)?.responseEndMs ?? null,
      transferredKiB: byThen.reduce((sum, request) => sum + request.transferBytes, 0) / 1024,
    };
  });

export const consoleSession = measurement({
  key: "console-session",
  title: "Console: 500 replies, 2,000 tool calls, first paint on a phone",
  seed: {
    what:
      `one session of the repository's scripted ACP agent given ${REPLIES} prompts through the API (queued, run one by one), each ` +
      `answered as claude-agent-acp sends a Claude Code turn: ${(REPLY_TEXT.length / 1024).toFixed(1)} KiB of markdown in 24-character ` +
      `deltas with ${TOOL_CALLS_PER_REPLY} tool calls among them (a Read of 40 lines, an Edit with a 30-line diff, a Write of 20 lines, ` +
      "a Bash run with 15 lines of coloured output), every reply checked whole; a session with no turns; Debian's headless Chromium.",
    async run(bench) {
      const agent = scriptedAgent(bench.tempDir("console-session"), { "*": TURN_STEPS });
      return consoleWorld(bench, { agent }, async (atrium) => {
        const projectId = await scratchProject(atrium, "shop-api");
        const [full, empty] = [
          await newSession(atrium, projectId, agent.harness, "Retries and deadlines"),
          await newSession(atrium, projectId, agent.harness, "Nothing yet"),
        ];
        const seedSeconds = (await timed(() => seedTurns(atrium, full))).ms / 1000;
        bench.log(`  seeded ${REPLIES} turns in ${seedSeconds.toFixed(1)} s`);
        // The server's write-behind (1 s) and checkpoint (2 s) have stored everything.
        await Bun.sleep(3_000);
        return { full, empty, seedSeconds };
      });
    },
  },
  action: {
    what:
      `\`#/sessions/<id>\` opened at ${PHONE.width}×${PHONE.height} in a fresh context (no cache; the token in localStorage before the ` +
      `page's script runs): the paint probe's marker in the task that puts the newest reply's text and its ${TOOL_CALLS_PER_REPLY} ` +
      "tool cards in the DOM; the figure is when that frame was presented, in ms from navigation start; bytes are those of the " +
      "requests that had ended by then.",
    run: (world) =>
      loadSession(world, world.full, [
        { name: "text", selector: ".message.assistant", text: REPLY_END_TEXT },
        { name: "shown", selector: ".message.assistant", text: REPLY_END_TEXT, holding: { selector: ".tool-card", count: TOOL_CALLS_PER_REPLY } },
      ]),
  },
  baseline: {
    what: "the same visit to the session with no turns, to the frame presenting its page.",
    run: (world) => loadSession(world, world.empty, [{ name: "shown", selector: ".session-page" }]),
  },
  rounds: { warmup: 2, measured: 7 },
  figures({ action, baseline }, { seedSeconds }) {
    return [
      ...paintAgainstBaseline(
        {
          action: "first paint of the newest reply with its tool cards",
          baseline: "no turns: first paint of the session's page",
          ratio: `${REPLIES} replies / none`,
        },
        action.map((l) => l.paintMs),
        baseline.map((l) => l.paintMs),
        below(500),
      ),
      { label: "newest reply's text painted, p50", value: medianOf(action, (l) => l.textPaintMs), unit: "ms" },
      { label: "GET /v1/sessions/{id} read, p50", value: medianOf(action, (l) => l.readMs), unit: "ms" },
      { label: "bytes transferred by the paint", value: medianOf(action, (l) => l.transferredKiB), unit: "KiB" },
      { label: "no turns: GET /v1/sessions/{id} read, p50", value: medianOf(baseline, (l) => l.readMs), unit: "ms" },
      { label: "no turns: bytes transferred by the paint", value: medianOf(baseline, (l) => l.transferredKiB), unit: "KiB" },
      { label: `seeding rate (${REPLIES} turns through the API)`, value: REPLIES / seedSeconds, unit: "turns/s" },
    ];
  },
});
