import { expect, test } from "bun:test";
import { AnsiText } from "../../src/console/ui/shared/ansi-text.ts";

const ESC = "\u001b";

test("colours become classes, a reset ends them, and other escapes leave no trace", () => {
  const terminal = new AnsiText();
  expect(terminal.write(`${ESC}[1;31merror${ESC}[0m: ${ESC}[2Kdone ${ESC}]0;title\u0007${ESC}[92mok${ESC}[39m.`)).toEqual([
    { text: "error", classes: "ansi-bold ansi-fg-1" },
    { text: ": ", classes: "" },
    { text: "done ", classes: "" },
    { text: "ok", classes: "ansi-fg-10" },
    { text: ".", classes: "" },
  ]);
});

test("an escape cut between two pieces is kept for the next, and the colour in force carries over", () => {
  const terminal = new AnsiText();
  expect(terminal.write(`plain ${ESC}[3`)).toEqual([{ text: "plain ", classes: "" }]);
  expect(terminal.write("2mgreen")).toEqual([{ text: "green", classes: "ansi-fg-2" }]);
  expect(terminal.write(" still")).toEqual([{ text: " still", classes: "ansi-fg-2" }]);
  // 256-colour codes are passed over without taking their numbers for colours of their own.
  expect(terminal.write(`${ESC}[0;38;5;31mx`)).toEqual([{ text: "x", classes: "" }]);
});

test("a lone escape character in the middle of text is shown, not held back", () => {
  const terminal = new AnsiText();
  expect(
    terminal
      .write(`a${ESC}xb`)
      .map((run) => run.text)
      .join(""),
  ).toBe(`a${ESC}xb`);
});
