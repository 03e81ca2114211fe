import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

// `bun test --parallel --timings=test/timings.json` starts the slowest files first; a file missing from
// the timings starts whenever its name comes up, and a slow one started last keeps a worker busy after
// the others are done. `npm run test:timings` records every file's time.
test("every test file of the main suite has its time in test/timings.json", () => {
  const root = join(import.meta.dir, "..");
  const recorded = Object.keys((JSON.parse(readFileSync(join(import.meta.dir, "timings.json"), "utf8")) as { files: Record<string, number> }).files);
  const files = readdirSync(import.meta.dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => relative(root, join(import.meta.dir, name)));
  expect(files.length).toBeGreaterThan(90);
  expect(files.filter((file) => !recorded.includes(file)).sort()).toEqual([]);
});
