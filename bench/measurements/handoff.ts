import { ConversationText } from "../lib/conversation-text.ts";
import { measurement } from "../lib/measurement.ts";
import { median, timed } from "../lib/stats.ts";
import { buildHandoff, type HandoffTurn } from "../../src/sessions/history-handoff.ts";

const TURNS = 200;
/** A turn as agents' turns run: a short prompt, a reply of a few paragraphs, two tool calls with output. */
const PROMPT_BYTES = 300;
const REPLY_BYTES = 2_000;
const OUTPUT_LINES = 20;

/** The turns, and their own size: every prompt, reply and tool output whole. */
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
    what: `${TURNS} turns of made-up text (a ${PROMPT_BYTES}-character prompt, a ${REPLY_BYTES}-character reply, two tool calls of ${OUTPUT_LINES} lines each).`,
    run: async () => conversation(),
  },
  action: {
    what: "builds the handoff the agent's first prompt would carry, timed.",
    run: async ({ turns }) => {
      const { ms, value } = await timed(async () => buildHandoff(turns));
      return { handoff: value, ms };
    },
  },
  baseline: { what: "the conversation's own size, every prompt, reply and tool output whole." },
  rounds: { warmup: 3, measured: 20 },
  figures: ({ action }, world) => {
    const { handoff: built } = action[0]!;
    return [
      // That it stays within HANDOFF_BUDGET_CHARS is the suite's to check (test/sessions/history-handoff.test.ts).
      { label: "handoff size", value: built.text.length / 1024, unit: "KiB" },
      { label: "conversation size", value: world.storedChars / 1024, unit: "KiB" },
      { label: "turns in full", value: built.turns - built.summarised - built.omitted, unit: "count" },
      { label: "turns summarised", value: built.summarised, unit: "count" },
      { label: "turns left out", value: built.omitted, unit: "count" },
      { label: "build time, p50", value: median(action.map((sample) => sample.ms)), unit: "ms" },
    ];
  },
});
