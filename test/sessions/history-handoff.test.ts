import { describe, expect, test } from "bun:test";
import { buildHandoff, HANDOFF_BUDGET_CHARS, type HandoffTurn } from "../../src/sessions/history-handoff.ts";
import { handoffToolCall } from "../../src/sessions/handoff-turns.ts";

const turn = (index: number, replyChars = 400): HandoffTurn => ({
  prompt: `prompt ${index}: ${"p".repeat(100)}`,
  attachments: [],
  reply: `reply ${index}: ${"r".repeat(replyChars)} end ${index}`,
  stopReason: "end_turn",
  tools: [],
});

/** The turns a handoff holds in full, and those it summarises, by number. */
const fullTurns = (text: string) => [...text.matchAll(/## Turn (\d+)\n/g)].map((match) => Number(match[1]));
const summarisedTurns = (text: string) => [...text.matchAll(/## Turn (\d+) \(summarised\)/g)].map((match) => Number(match[1]));

describe("the handoff of a stored conversation", () => {
  test("a conversation within the budget goes whole, in order", () => {
    const handoff = buildHandoff([turn(1), turn(2)]);
    expect(handoff).toMatchObject({ turns: 2, summarised: 0, omitted: 0 });
    expect(fullTurns(handoff.text)).toEqual([1, 2]);
    expect(handoff.text).toContain(`Assistant:\n${turn(2).reply}\n`);
  });

  test("a long conversation stays under the budget: the newest turns go in full, the oldest are summarised first, and no turn is cut part-way", () => {
    const turns = Array.from({ length: 200 }, (_, index) => turn(index + 1));
    const handoff = buildHandoff(turns);
    expect(handoff.text.length).toBeLessThanOrEqual(HANDOFF_BUDGET_CHARS);
    const full = fullTurns(handoff.text);
    const summarised = summarisedTurns(handoff.text);
    expect(handoff.summarised).toBeGreaterThan(0);
    expect(summarised.length).toBe(handoff.summarised);
    // The summaries are the oldest turns, the full ones the newest, together each turn once.
    expect([...summarised, ...full]).toEqual(Array.from({ length: 200 - handoff.omitted }, (_, index) => handoff.omitted + index + 1));
    expect(full.at(-1)).toBe(200);
    // Every turn given in full has all its reply.
    for (const number of full) expect(handoff.text).toContain(`${turns[number - 1]!.reply}\n`);
    expect(handoff.text).toEndWith("</conversation-so-far>\n");
  });

  test("200 turns as agents run them (a 2,000-character reply, two tool calls of 20 lines) stay under the budget, nearly all kept", () => {
    const output = Array.from({ length: 20 }, (_, line) => `line ${line}: ${"o".repeat(55)}`).join("\n");
    const tools = [
      { title: "npm test", kind: "execute", status: "completed", paths: [], output },
      { title: "Edit src/session.ts", kind: "edit", status: "completed", paths: ["/repo/src/session.ts"], output },
    ];
    const handoff = buildHandoff(Array.from({ length: 200 }, (_, index) => ({ ...turn(index + 1, 2_000), tools })));
    expect(handoff.text.length).toBeLessThanOrEqual(HANDOFF_BUDGET_CHARS);
    expect(handoff.omitted).toBeLessThan(10);
  });

  test("when even the summaries do not fit, the oldest are left out and counted", () => {
    const turns = Array.from({ length: 50 }, (_, index) => turn(index + 1));
    const handoff = buildHandoff(turns, 4_000);
    expect(handoff.text.length).toBeLessThanOrEqual(4_000);
    expect(handoff.omitted).toBeGreaterThan(0);
    expect(handoff.text).toContain(`(${handoff.omitted} earlier turns left out: the whole did not fit.)`);
    const kept = [...summarisedTurns(handoff.text), ...fullTurns(handoff.text)];
    expect(kept).toEqual(Array.from({ length: 50 - handoff.omitted }, (_, index) => handoff.omitted + index + 1));
  });

  test("one huge reply is summarised rather than cut", () => {
    const handoff = buildHandoff([turn(1), turn(2, 100_000)], 10_000);
    expect(handoff.text.length).toBeLessThanOrEqual(10_000);
    expect(summarisedTurns(handoff.text)).toEqual([1, 2]);
    expect(handoff.text).toContain("prompt 2");
  });

  test("a tool call is what it did and its result's last lines", () => {
    const call = handoffToolCall({
      type: "tool_call",
      toolCallId: "t1",
      title: "npm test",
      kind: "execute",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "line 1\nline 2\n\nFAIL test/a.test.ts\n1 failed, 9 passed\n" } }],
      locations: [],
      rawInput: { command: "npm test" },
      rawOutput: null,
    });
    const edit = handoffToolCall({
      type: "tool_call",
      toolCallId: "t2",
      title: "Edit src/a.ts",
      kind: "edit",
      status: "completed",
      content: [{ type: "diff", path: "/repo/src/a.ts", oldText: "a", newText: "b" }],
      locations: [{ path: "/repo/src/a.ts" }],
      rawInput: null,
      rawOutput: null,
    });
    const handoff = buildHandoff([{ ...turn(1), tools: [call, edit] }]);
    expect(handoff.text).toContain(
      "Tool calls:\n  - execute: npm test [failed]\n    │ line 2\n    │ FAIL test/a.test.ts\n    │ 1 failed, 9 passed\n  - edit: Edit src/a.ts (/repo/src/a.ts) [completed]\n",
    );
  });
});
