import { expect, test } from "bun:test";
import { type DiffLine, diffRows, splitRows } from "../../src/console/ui/shared/diff-rows.ts";

const shape = (rows: ReturnType<typeof diffRows>) =>
  rows.map((row) =>
    row.kind === "skipped"
      ? `… ${row.count}`
      : `${row.kind[0]} ${row.oldNumber ?? "-"} ${row.newNumber ?? "-"} ${row.pieces.map((piece) => (piece.changed ? `[${piece.text}]` : piece.text)).join("")}`,
  );

test("a new file is all added lines, numbered from 1", () => {
  expect(shape(diffRows(null, "one\ntwo\n"))).toEqual(["a - 1 one", "a - 2 two"]);
});

test("a changed line is a removed and an added line with the differing words marked; far unchanged lines fold", () => {
  const before = ["a", "b", "c", "d", "e", "f", "g", "h", "const x = 1;", "i"].join("\n");
  const after = ["a", "b", "c", "d", "e", "f", "g", "h", "const x = 2;", "i", "j"].join("\n");
  expect(shape(diffRows(before, after))).toEqual([
    "… 5",
    "c 6 6 f",
    "c 7 7 g",
    "c 8 8 h",
    "r 9 - const x = [1];",
    // The last line gained its line break: git shows it changed too.
    "r 10 - i",
    "a - 9 const x = [2];",
    "a - 10 i",
    "a - 11 j",
  ]);
});

test("side by side: context on both sides, each removed line beside its replacement, a fold across both", () => {
  const rows = diffRows("keep\nold\n", "keep\nnew\nmore\n");
  const text = (line: DiffLine | null) => (line ? line.pieces.map((piece) => piece.text).join("") : null);
  expect(splitRows(rows).map((row) => [text(row.left), text(row.right)])).toEqual([
    ["keep", "keep"],
    ["old", "new"],
    [null, "more"],
  ]);
});
