import { expect, test } from "bun:test";
import { hunkPlace, patchHunks } from "../../src/console/ui/git/patch-hunks.ts";

const PATCH = [
  "diff --git a/app.txt b/app.txt",
  "index 1111111..2222222 100644",
  "--- a/app.txt",
  "+++ b/app.txt",
  "@@ -1,4 +1,4 @@",
  "-line 1",
  "+LINE 1",
  " line 2",
  " line 3",
  " line 4",
  "@@ -27,4 +27,4 @@ function tail() {",
  " line 27",
  "-line 30",
  "+LINE 30",
  "@@ -40 +40,0 @@",
  "-gone",
  "",
].join("\n");

test("a file's diff splits into its hunks, each named as the git routes take it and placed by its new lines", () => {
  const hunks = patchHunks(PATCH);
  expect(hunks.map((hunk) => [hunk.key, hunk.header, hunkPlace(hunk)])).toEqual([
    ["@@ -1,4 +1,4 @@", "@@ -1,4 +1,4 @@", "lines 1–4"],
    ["@@ -27,4 +27,4 @@", "@@ -27,4 +27,4 @@ function tail() {", "lines 27–30"],
    ["@@ -40 +40,0 @@", "@@ -40 +40,0 @@", "after line 40"],
  ]);
  // A hunk's text is a patch of its own: its header, then its lines, the file's header left out.
  expect(hunks[1]!.text).toBe("@@ -27,4 +27,4 @@ function tail() {\n line 27\n-line 30\n+LINE 30\n");
  expect(hunks[2]!.text).toBe("@@ -40 +40,0 @@\n-gone\n");
  expect(hunkPlace({ ...hunks[0]!, newStart: 5, newCount: 1 })).toBe("line 5");
  expect(hunkPlace({ ...hunks[0]!, newStart: 0, newCount: 0 })).toBe("the start");
  expect(patchHunks("Binary files a/x and b/x differ\n")).toEqual([]);
});
