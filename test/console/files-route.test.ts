import { expect, test } from "bun:test";
import { lineRuns } from "../../src/console/ui/files/line-runs.ts";
import { type FilesOpen, filesHref, parseFilesRoute } from "../../src/console/ui/files/files-route.ts";

/** What the router does with a hash: its parts after `#/`. */
const parseRoute = (hash: string) => {
  const files = parseFilesRoute(...(hash.replace(/^#\/?/, "").split("/") as [string, string, string, string, string, string]));
  return files && { page: "files", ...files };
};

test("a Files address names its owner, a folder or a file (at a line) and comes back the same", () => {
  const opens: FilesOpen[] = [
    { kind: "folder", path: "" },
    { kind: "folder", path: "src/console ui" },
    { kind: "file", path: "docs/100% done/#notes.md" },
    { kind: "file", path: "src/app.ts", line: 42 },
  ];
  for (const kind of ["project", "session"] as const) {
    for (const open of opens) {
      expect(parseRoute(filesHref(kind, "prj_a/b", open))).toEqual({ page: "files", owner: { kind, id: "prj_a/b" }, open });
    }
  }
  expect(filesHref("project", "prj_1")).toBe("#/projects/prj_1/files");
  expect(filesHref("session", "ses_1", { kind: "file", path: "a/b.ts", line: 3 })).toBe("#/sessions/ses_1/files/file/a%2Fb.ts/3");
  // A line that is not a number is left out; an unknown part opens the root.
  expect(parseRoute("#/projects/p/files/file/a.ts/x")).toEqual({ page: "files", owner: { kind: "project", id: "p" }, open: { kind: "file", path: "a.ts" } });
  expect(parseRoute("#/projects/p/files/what")).toEqual({ page: "files", owner: { kind: "project", id: "p" }, open: { kind: "folder", path: "" } });
});

test("highlighted runs are cut into lines, a run that spans lines keeping its classes on each", () => {
  const highlighter = {
    knows: () => true,
    runs: () => [
      { text: "/* one\ntwo */", classes: "hljs-comment" },
      { text: "\nx = 1\n", classes: "" },
    ],
  };
  expect(lineRuns("/* one\ntwo */\nx = 1\n", highlighter, "js")).toEqual([
    [{ text: "/* one", classes: "hljs-comment" }],
    [{ text: "two */", classes: "hljs-comment" }],
    [{ text: "x = 1", classes: "" }],
  ]);
  // Without a highlighter, plain lines; an empty line is an empty line, and a text without a last newline keeps its last line.
  expect(lineRuns("a\n\nb", undefined, "")).toEqual([[{ text: "a", classes: "" }], [], [{ text: "b", classes: "" }]]);
});
