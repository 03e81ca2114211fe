/** git's progress lines read and thinned (issue 39): a few events a second, each phase's first and 100 % line kept. */
import { expect, test } from "bun:test";
import { parseProgressLine, type ProgressLine, throttledProgress, withoutProgress } from "../../src/git/remote-progress.ts";

test("a progress line is a phase with its percent, the remote's with its prefix; a remote's words have no percent; anything else is none", () => {
  expect(parseProgressLine("Writing objects:  45% (9/20)")).toEqual({ phase: "Writing objects", percent: 45 });
  expect(parseProgressLine("remote: Counting objects: 100% (450/450), done.        ")).toEqual({ phase: "remote: Counting objects", percent: 100 });
  expect(parseProgressLine("remote: policy: no pushes on Sunday   ")).toEqual({ phase: "remote: policy: no pushes on Sunday", percent: null });
  expect(parseProgressLine("To /tmp/r.git")).toBeUndefined();
  expect(parseProgressLine("remote: ")).toBeUndefined();
});

test("git's stderr loses what --progress added and keeps the rest, the remote's words included", () => {
  const stderr = [
    "Enumerating objects: 5, done.",
    "Counting objects:  50% (1/2)\rCounting objects: 100% (2/2)\rCounting objects: 100% (2/2), done.",
    "Delta compression using up to 2 threads",
    "Writing objects: 100% (3/3), 280 bytes | 280.00 KiB/s, done.",
    "Total 3 (delta 0), reused 0 (delta 0), pack-reused 0",
    "remote: policy: no pushes on Sunday",
    "error: failed to push some refs to '/tmp/r.git'",
  ].join("\n");
  expect(withoutProgress(stderr)).toBe("remote: policy: no pushes on Sunday\nerror: failed to push some refs to '/tmp/r.git'");
});

test("within an interval only a new phase and a phase's 100 % come through; after it, the next line", () => {
  let now = 0;
  const reported: ProgressLine[] = [];
  const onLine = throttledProgress(
    () => now,
    (progress) => reported.push(progress),
  );
  for (const line of ["Counting objects:  10% (1/10)", "Counting objects:  50% (5/10)", "remote: hello", "Counting objects: 100% (10/10)"]) onLine(line);
  onLine("Counting objects: 100% (10/10), done.");
  onLine("Writing objects:   5% (1/20)");
  onLine("Writing objects:  10% (2/20)");
  now = 250;
  onLine("Writing objects:  15% (3/20)");
  onLine("Writing objects:  20% (4/20)");
  now = 500;
  onLine("remote: still going");
  expect(reported).toEqual([
    { phase: "Counting objects", percent: 10 },
    { phase: "Counting objects", percent: 100 },
    { phase: "Writing objects", percent: 5 },
    { phase: "Writing objects", percent: 15 },
    { phase: "remote: still going", percent: null },
  ]);
});
