import { expect, test } from "bun:test";
import { type DiffLine, diffRows, patchRows, splitRows } from "../../src/console/ui/shared/diff-rows.ts";

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

test("a git patch: its hunks numbered from their headers, the lines git left out folded, words marked", () => {
  const patch = [
    "diff --git a/f.txt b/f.txt",
    "index 1111111..2222222 100644",
    "--- a/f.txt",
    "+++ b/f.txt",
    "@@ -3,3 +3,3 @@ heading",
    " c",
    "-let d = 1",
    "+let d = 2",
    " e",
    "@@ -20,2 +20,3 @@",
    " t",
    " u",
    "+v",
    "\\ No newline at end of file",
  ].join("\n");
  expect(shape(patchRows(patch))).toEqual([
    "… 2",
    "c 3 3 c",
    "r 4 - let d = [1]",
    "a - 4 let d = [2]",
    "c 5 5 e",
    "… 14",
    "c 20 20 t",
    "c 21 21 u",
    "a - 22 v",
  ]);
  // A new file: one hunk from line 1.
  expect(shape(patchRows("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"))).toEqual(["a - 1 one", "a - 2 two"]);
});
