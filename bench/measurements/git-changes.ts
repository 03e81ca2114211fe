/**
 * A working tree's changes (issues 28 and 39): `GET /v1/projects/{id}/locations/{locationId}/changes`
 * paged through a repository where BENCH_CHANGED_FILES (5,000) files changed, and one file's diff, set
 * against the git CLI doing the same reads (`git status` and `git diff --numstat`, then `git diff` of the
 * file) in the same run, as a ratio: what the server adds on top of git.
 */
import { join } from "node:path";
import { timedGet, type Atrium } from "../lib/atrium.ts";
import { committedRepository } from "../lib/git-repository.ts";
import { measurement } from "../lib/measurement.ts";
import { median, ratio } from "../lib/stats.ts";

const CHANGED = Number(process.env.BENCH_CHANGED_FILES ?? 5_000);
/** The largest page the changes list gives. */
const PAGE = 1000;

interface World {
  atrium: Atrium;
  folder: string;
  base: string;
}

interface Reads {
  listMs: number;
  diffMs: number;
}

const pathOf = (index: number) => `src/part-${String(index % 50).padStart(2, "0")}/file-${index}.txt`;
const lines = (index: number, version: string) => Array.from({ length: 20 }, (_, line) => `${version} line ${line} of file ${index}`).join("\n");

/** A repository whose one commit holds CHANGED text files (by git fast-import), checked out, then each file rewritten. */
async function repositoryWithChanges(folder: string): Promise<void> {
  committedRepository(
    folder,
    Array.from({ length: CHANGED }, (_, index) => ({ path: pathOf(index), text: `${lines(index, "first")}\n` })),
  );
  for (let index = 0; index < CHANGED; index++) await Bun.write(join(folder, pathOf(index)), `${lines(index, index % 2 ? "second" : "first")}\nadded\n`);
}

const timed = async (read: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await read();
  return performance.now() - started;
};

export const gitChanges = measurement<World, Reads>({
  key: "git-changes",
  title: `GET …/changes of ${CHANGED.toLocaleString("en")} changed files, and a diff, against the git CLI`,
  seed: {
    what:
      `a git repository of ${CHANGED.toLocaleString("en")} committed text files (20 lines each, by git fast-import), checked out, then every file ` +
      "rewritten (half with every line changed, half with a line added), and a project made of it through the API.",
    async run(bench) {
      const folder = join(bench.tempDir("git-changes"), "repo");
      bench.log(`  generating ${CHANGED.toLocaleString("en")} changed files ...`);
      await repositoryWithChanges(folder);
      const atrium = await bench.atrium();
      const project = await atrium.call<{ id: string; locations: Array<{ id: string }> }>(201, "POST", "/v1/projects", { folderPath: folder });
      return { atrium, folder, base: `/v1/projects/${project.id}/locations/${project.locations[0]!.id}/changes` };
    },
  },
  action: {
    what: `every page of the change list (${PAGE} files a page, line counts included, timed to the last byte), then the diff of one file.`,
    async run(world) {
      const listMs = await timed(async () => {
        let cursor: string | null = null;
        do {
          const page = await timedGet(world.atrium.url, world.atrium.headers, `${world.base}?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ""}`);
          cursor = (JSON.parse(new TextDecoder().decode(page.body)) as { next: string | null }).next;
        } while (cursor);
      });
      const diffMs = (await timedGet(world.atrium.url, world.atrium.headers, `${world.base}/diff?path=${encodeURIComponent(pathOf(7))}`)).ms;
      return { listMs, diffMs };
    },
  },
  baseline: {
    what: "the git CLI in the same folder, taking turns with the action: `git status --porcelain -z` and `git diff --numstat -z HEAD` (the list), then `git diff HEAD -- <file>` (the diff).",
    async run(world) {
      const run = (args: string[]) => Bun.spawn(["git", ...args], { cwd: world.folder, stdout: "ignore", stderr: "ignore" }).exited;
      const listMs = await timed(() => Promise.all([run(["status", "--porcelain", "-z"]), run(["diff", "--numstat", "-z", "HEAD"])]));
      const diffMs = await timed(() => run(["diff", "HEAD", "--", pathOf(7)]));
      return { listMs, diffMs };
    },
  },
  rounds: { warmup: 1, measured: 5 },
  figures: ({ action, baseline }) => [
    { label: "the whole change list, p50", value: median(action.map((round) => round.listMs)), unit: "ms" },
    { label: "git status + git diff --numstat (baseline), p50", value: median(baseline.map((round) => round.listMs)), unit: "ms" },
    {
      label: "the change list against the git CLI",
      value: ratio(median(action.map((round) => round.listMs)), median(baseline.map((round) => round.listMs))),
      unit: "ratio",
    },
    { label: "one file's diff, p50", value: median(action.map((round) => round.diffMs)), unit: "ms" },
    {
      label: "one file's diff against git diff",
      value: ratio(median(action.map((round) => round.diffMs)), median(baseline.map((round) => round.diffMs))),
      unit: "ratio",
    },
  ],
});
