/**
 * A working tree's changes (issues 28 and 39): `GET /v1/projects/{id}/locations/{locationId}/changes`
 * paged through a repository where BENCH_CHANGED_FILES (5,000) files changed, and one file's diff, set
 * against the git CLI doing the same reads (`git status` and `git diff --numstat`, then `git diff` of the
 * file) in the same run, as a ratio: what the server adds on top of git.
 */
import { join } from "node:path";
import { folderProject } from "../lib/atrium.ts";
import { committedRepository, git } from "../lib/git-repository.ts";
import { measurement } from "../lib/measurement.ts";
import { medianOf, ratio, timed } from "../lib/stats.ts";

const CHANGED = Number(process.env.BENCH_CHANGED_FILES ?? 5_000);
/** The largest page the changes list gives. */
const PAGE = 1000;

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

export const gitChanges = measurement({
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
      return { atrium, folder, base: `${(await folderProject(atrium, folder)).location}/changes` };
    },
  },
  action: {
    what: `every page of the change list (${PAGE} files a page, line counts included, timed to the last byte), then the diff of one file.`,
    async run(world) {
      const { ms: listMs } = await timed(async () => {
        let cursor: string | null = null;
        do {
          cursor = (await world.atrium.json<{ next: string | null }>(`${world.base}?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ""}`)).next;
        } while (cursor);
      });
      const diffMs = (await world.atrium.get(`${world.base}/diff?path=${encodeURIComponent(pathOf(7))}`)).ms;
      return { listMs, diffMs };
    },
  },
  baseline: {
    what: "the git CLI in the same folder, taking turns with the action: `git status --porcelain -z` and `git diff --numstat -z HEAD` (the list), then `git diff HEAD -- <file>` (the diff).",
    async run(world) {
      const run = (args: string[]) => Bun.spawn(["git", ...args], { cwd: world.folder, stdout: "ignore", stderr: "ignore" }).exited;
      const listMs = (await timed(() => Promise.all([run(["status", "--porcelain", "-z"]), run(["diff", "--numstat", "-z", "HEAD"])]))).ms;
      const diffMs = (await timed(() => run(["diff", "HEAD", "--", pathOf(7)]))).ms;
      return { listMs, diffMs };
    },
  },
  rounds: { warmup: 1, measured: 5 },
  figures: ({ action, baseline }) => {
    const [list, gitList] = [medianOf(action, (round) => round.listMs), medianOf(baseline, (round) => round.listMs)];
    const [diff, gitDiff] = [medianOf(action, (round) => round.diffMs), medianOf(baseline, (round) => round.diffMs)];
    return [
      { label: "the whole change list, p50", value: list, unit: "ms" },
      { label: "git status + git diff --numstat (baseline), p50", value: gitList, unit: "ms" },
      { label: "the change list against the git CLI", value: ratio(list, gitList), unit: "ratio" },
      { label: "one file's diff, p50", value: diff, unit: "ms" },
      { label: "one file's diff against git diff", value: ratio(diff, gitDiff), unit: "ratio" },
    ];
  },
});

const COMMITTED = Number(process.env.BENCH_COMMITTED_FILES ?? 1_000);

/** A repository of COMMITTED files with its own identity, pushed to a local bare repository that is its origin. */
function pushedRepository(root: string, name: string) {
  const folder = join(root, name);
  const bare = join(root, `${name}.git`);
  committedRepository(
    folder,
    Array.from({ length: COMMITTED }, (_, index) => ({ path: pathOf(index), text: `${lines(index, "first")}\n` })),
  );
  git(["config", "user.name", "Bench"], folder);
  git(["config", "user.email", "bench@atrium.invalid"], folder);
  git(["init", "--quiet", "--bare", bare], root);
  git(["remote", "add", "origin", bare], folder);
  git(["push", "--quiet", "-u", "origin", "main"], folder);
  return { folder, bare };
}

/** Every file rewritten for the round and staged (not timed): what the commit then takes. */
async function stagedRound(folder: string, round: number): Promise<void> {
  for (let index = 0; index < COMMITTED; index++) await Bun.write(join(folder, pathOf(index)), `${lines(index, `round ${round}`)}\n`);
  git(["add", "-A"], folder);
}

/**
 * Writing history (issue 39): `POST …/git/commit` of COMMITTED (1,000) staged files, then `POST …/git/push`
 * of that commit to a local bare remote, against the git CLI doing the same in a twin repository in the
 * same run, as ratios.
 */
export const gitCommitPush = measurement({
  key: "git-commit-push",
  title: `POST …/git/commit of ${COMMITTED.toLocaleString("en")} files and …/git/push to a local bare remote, against the git CLI`,
  seed: {
    what:
      `two like git repositories of ${COMMITTED.toLocaleString("en")} committed text files (by git fast-import), each pushed to a local bare ` +
      "repository that is its origin, and a project made of the first through the API.",
    async run(bench) {
      const root = bench.tempDir("git-commit-push");
      const [ours, theirs] = [pushedRepository(root, "ours"), pushedRepository(root, "theirs")];
      const atrium = await bench.atrium();
      return { atrium, ours, theirs, base: `${(await folderProject(atrium, ours.folder)).location}/git` };
    },
  },
  action: {
    what: `every file rewritten and staged (not timed), then \`POST …/git/commit\` of the ${COMMITTED.toLocaleString("en")} files and \`POST …/git/push\` of it, each timed to its answer.`,
    async run(world, round) {
      await stagedRound(world.ours.folder, round);
      const commitMs = (await timed(() => world.atrium.call(201, "POST", `${world.base}/commit`, { message: `Round ${round}` }))).ms;
      const pushMs = (await timed(() => world.atrium.call(200, "POST", `${world.base}/push`, {}))).ms;
      return { commitMs, pushMs };
    },
  },
  baseline: {
    what: "the git CLI in the twin repository, taking turns with the action: the same rewrite and `git add -A` (not timed), then `git commit -q -F -` and `git push -q origin main`.",
    async run(world, round) {
      await stagedRound(world.theirs.folder, round);
      const commitMs = (await timed(async () => git(["commit", "-q", "-F", "-"], world.theirs.folder, `Round ${round}`))).ms;
      const pushMs = (await timed(async () => git(["push", "-q", "origin", "main"], world.theirs.folder))).ms;
      return { commitMs, pushMs };
    },
  },
  rounds: { warmup: 1, measured: 5 },
  figures: ({ action, baseline }) =>
    (["commitMs", "pushMs"] as const).flatMap((key) => {
      const [ours, theirs] = [medianOf(action, (round) => round[key]), medianOf(baseline, (round) => round[key])];
      const what = key === "commitMs" ? `the commit of ${COMMITTED.toLocaleString("en")} files` : "the push to a local bare remote";
      return [
        { label: `${what}, p50`, value: ours, unit: "ms" as const },
        { label: `${what} by the git CLI (baseline), p50`, value: theirs, unit: "ms" as const },
        { label: `${what} against the git CLI`, value: ratio(ours, theirs), unit: "ratio" as const },
      ];
    }),
});
