import { describe, expect, test } from "bun:test";
import { type DetailEntry, replySegments } from "../../src/console/ui/sessions/reply-segments.ts";

const toolCall = (id: string, textOffset?: number): DetailEntry => ({
  key: `tool:${id}`,
  position: 0,
  revision: 1,
  payload: {
    type: "tool_call",
    toolCallId: id,
    title: id,
    kind: "edit",
    status: "completed",
    content: [],
    locations: [],
    rawInput: null,
    rawOutput: null,
    textOffset,
  },
});
const thought = (n: number, textOffset?: number): DetailEntry => ({
  key: `thought:${n}`,
  position: 0,
  revision: 1,
  payload: { type: "thought", text: "hm", textOffset },
});

const shape = (text: string, entries: DetailEntry[]) =>
  replySegments(text, entries).map((segment) => (segment.type === "text" ? segment.text : `[${segment.entry.key}]`));

describe("a reply cut where its calls and thoughts came", () => {
  test("text, call, text, in the order of the offsets", () => {
    expect(shape("Looking.Writing.Done.", [thought(0, 0), toolCall("read", 8), toolCall("write", 16)])).toEqual([
      "[thought:0]",
      "Looking.",
      "[tool:read]",
      "Writing.",
      "[tool:write]",
      "Done.",
    ]);
  });

  test("calls at the same place stay in the order they came, with no empty text between", () => {
    expect(shape("ab", [toolCall("one", 1), toolCall("two", 1)])).toEqual(["a", "[tool:one]", "[tool:two]", "b"]);
  });

  test("an entry kept without an offset, or past the text so far, goes after the text", () => {
    expect(shape("abc", [toolCall("old")])).toEqual(["abc", "[tool:old]"]);
    expect(shape("abc", [toolCall("ahead", 10)])).toEqual(["abc", "[tool:ahead]"]);
  });

  test("an offset that goes back is placed where the last one was", () => {
    expect(shape("abcdef", [toolCall("one", 4), toolCall("two", 2)])).toEqual(["abcd", "[tool:one]", "[tool:two]", "ef"]);
  });

  test("a reply with no text and no details is one empty run; the text runs' keys are where they start", () => {
    expect(shape("", [])).toEqual([""]);
    expect(replySegments("abcd", [toolCall("one", 2)]).map((segment) => segment.key)).toEqual(["text:0", "tool:one", "text:2"]);
  });
});
