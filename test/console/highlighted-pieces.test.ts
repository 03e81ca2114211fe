import { describe, expect, test } from "bun:test";
import { overlayRuns } from "../../src/console/ui/shared/highlighted-pieces.ts";

describe("a diff line's marks laid over its colours", () => {
  test("cut wherever either changes; text, marks and classes kept", () => {
    const pieces = [
      { text: "const port = ", changed: false },
      { text: "8080", changed: true },
      { text: ";", changed: false },
    ];
    const runs = [
      { text: "const", classes: "hljs-keyword" },
      { text: " port = ", classes: "" },
      { text: "80", classes: "hljs-number" },
      { text: "80;", classes: "" },
    ];
    expect(overlayRuns(pieces, runs)).toEqual([
      { text: "const", changed: false, classes: "hljs-keyword" },
      { text: " port = ", changed: false, classes: "" },
      { text: "80", changed: true, classes: "hljs-number" },
      { text: "80", changed: true, classes: "" },
      { text: ";", changed: false, classes: "" },
    ]);
  });

  test("runs that stop short leave the rest plain; empty runs are skipped", () => {
    expect(
      overlayRuns(
        [{ text: "abc", changed: false }],
        [
          { text: "", classes: "x" },
          { text: "a", classes: "y" },
        ],
      ),
    ).toEqual([
      { text: "a", changed: false, classes: "y" },
      { text: "bc", changed: false, classes: "" },
    ]);
  });
});
