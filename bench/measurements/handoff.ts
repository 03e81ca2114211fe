import { scriptedAgent } from "../lib/agents.ts";
import { newSession, runTurns, scratchProject, type Atrium } from "../lib/atrium.ts";
import { ConversationText } from "../lib/conversation-text.ts";
import { measurement } from "../lib/measurement.ts";
import { median, timed } from "../lib/stats.ts";
import { buildHandoff, type HandoffTurn } from "../../src/sessions/history-handoff.ts";

const TURNS = 200;
/** A turn as agents' turns run: a short prompt, a reply of a few paragraphs, two tool calls with output. */
const PROMPT_BYTES = 300;
const REPLY_BYTES = 2_000;
const OUTPUT_LINES = 20;

/** From `create` (a new session's request) to its first reply's end, in ms; the session is then deleted. */
async function firstReplyMs(atrium: Atrium, create: () => Promise<string>): Promise<number> {
  const started = performance.now();
  const id = await create();
  await runTurns(atrium, id, ["go on"], 60_000, 5);
  const ms = performance.now() - started;
  await atrium.call(200, "DELETE", `/v1/sessions/${id}`);
  return ms;
}

/** TURNS turns of made-up text, and the conversation's own size: every prompt, reply and tool output whole. */
function conversation() {
  const text = new ConversationText(36);
  const output = () => Array.from({ length: OUTPUT_LINES }, () => text.message(60)).join("\n");
  const turns = Array.from({ length: TURNS }, (): HandoffTurn => {
    const tools = [
      { title: "npm test", kind: "execute", status: "completed", paths: [], output: output() },
      { title: "Edit src/session.ts", kind: "edit", status: "completed", paths: ["/repo/src/session.ts"], output: output() },
    ];
    return { prompt: text.message(PROMPT_BYTES), attachments: [], reply: text.message(REPLY_BYTES), stopReason: "end_turn", tools };
  });
  const storedChars = turns.reduce(
    (sum, turn) => sum + turn.prompt.length + (turn.reply?.length ?? 0) + turn.tools.reduce((all, tool) => all + tool.output.length, 0),
    0,
  );
  return { turns, storedChars };
}

/** The history handoff (src/sessions/history-handoff.ts) of a 200-turn conversation: its size against the budget, and its cost. */
export const handoff = measurement({
  key: "handoff",
  title: "History handoff of a 200-turn conversation",
  seed: {
    what: `${TURNS} turns of made-up text (a ${PROMPT_BYTES}-character prompt, a ${REPLY_BYTES}-character reply, two tool calls of ${OUTPUT_LINES} lines each); the same turns, without tool calls, run through the compiled server's session of the scripted agent.`,
    run: async (bench) => {
      const world = conversation();
      const agent = scriptedAgent(bench.tempDir("handoff"), { "*": [{ chunk: world.turns[0]!.reply }] });
      const atrium = await bench.atrium({ config: agent.config, env: agent.env, harness: agent.harness });
      const projectId = await scratchProject(atrium);
      const sessionId = await newSession(atrium, projectId, agent.harness);
      const prompts = world.turns.map((turn) => turn.prompt);
      await runTurns(atrium, sessionId, prompts, 600_000);
      return { ...world, atrium, projectId, sessionId };
    },
  },
  action: {
    what: "builds the handoff the agent's first prompt would carry, timed; then forks the session and times its first reply (its prompt carries the handoff).",
    run: async ({ turns, atrium, sessionId }) => {
      const { ms, value } = await timed(async () => buildHandoff(turns));
      // From the fork's request to its first reply's end (its prompt carries the handoff).
      const forkReplyMs = await firstReplyMs(atrium, async () => (await atrium.call<{ id: string }>(201, "POST", `/v1/sessions/${sessionId}/fork`, {})).id);
      return { handoff: value, ms, forkReplyMs };
    },
  },
  baseline: {
    what: "the conversation's own size, every prompt, reply and tool output whole; a new session's first reply, in turn with the fork's.",
    run: async ({ atrium, projectId }) => firstReplyMs(atrium, () => newSession(atrium, projectId, "scripted")),
  },
  rounds: { warmup: 3, measured: 20 },
  figures: ({ action, baseline }, world) => {
    const { handoff: built } = action[0]!;
    return [
      // That it stays within HANDOFF_BUDGET_CHARS is the suite's to check (test/sessions/history-handoff.test.ts).
      { label: "handoff size", value: built.text.length / 1024, unit: "KiB" },
      { label: "conversation size", value: world.storedChars / 1024, unit: "KiB" },
      { label: "turns in full", value: built.turns - built.summarised - built.omitted, unit: "count" },
      { label: "turns summarised", value: built.summarised, unit: "count" },
      { label: "turns left out", value: built.omitted, unit: "count" },
      { label: "build time, p50", value: median(action.map((sample) => sample.ms)), unit: "ms" },
      { label: "first reply after a fork, p50", value: median(action.map((sample) => sample.forkReplyMs)), unit: "ms" },
      { label: "first reply of a new session, p50 (baseline)", value: median(baseline), unit: "ms" },
      { label: "fork / new session", value: median(action.map((sample) => sample.forkReplyMs)) / median(baseline), unit: "ratio" },
    ];
  },
});
