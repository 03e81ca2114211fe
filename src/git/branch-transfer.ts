import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConflictError } from "../errors.ts";
import { runGit } from "./git-runner.ts";
import { gitStep } from "./git-step.ts";
import { withPrivateIndex } from "./snapshot-tree.ts";

/** A working tree as it travels to another machine: its branch's commits and every change not committed. */
export interface WorkingTreePack {
  /** The branch checked out (`atrium/x`, `main`); null on a detached HEAD. */
  branch: string | null;
  head: string;
  /** `git bundle` of the commits no remote-tracking branch holds (base64); null when every commit is on a remote. */
  bundle: string | null;
  /** `git diff --binary` from HEAD to the working tree: staged, unstaged and untracked files (ignored ones left out). */
  patch: string;
}

const GIT_TIMEOUT_MS = 120_000;

async function inTempDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-move-"));
  try {
    return await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Packs the working tree at `cwd`; neither it nor its index changes. */
export async function packWorkingTree(cwd: string): Promise<WorkingTreePack> {
  const head = (await gitStep(["rev-parse", "--verify", "HEAD"], { cwd })).stdout.trim();
  const symbolic = await runGit(["symbolic-ref", "--short", "-q", "HEAD"], { cwd });
  const bundle = await inTempDir(async (dir) => {
    const file = join(dir, "branch.bundle");
    const made = await runGit(["bundle", "create", "--quiet", file, "HEAD", "--not", "--remotes"], { cwd, timeoutMs: GIT_TIMEOUT_MS });
    // git refuses an empty bundle: every commit is on a remote the other machine fetches from too.
    if (made.code !== 0) {
      if (/empty bundle/.test(made.stderr)) return null;
      throw new ConflictError(`git bundle failed in ${cwd}: ${made.stderr.trim()}`);
    }
    return readFileSync(file).toString("base64");
  });
  const patch = await withPrivateIndex(cwd, async (env) => {
    await gitStep(["add", "-A"], { cwd, env, timeoutMs: GIT_TIMEOUT_MS });
    return (await gitStep(["diff", "--cached", "--binary", "HEAD"], { cwd, env, timeoutMs: GIT_TIMEOUT_MS })).stdout;
  });
  return { branch: symbolic.code === 0 ? symbolic.stdout.trim() : null, head, bundle, patch };
}

/**
 * Makes the pack's commits known in `repository` under `ref` (which keeps them until a branch does):
 * from its bundle, or already there. A bundle whose base the repository lacks is fetched once from its remotes.
 */
export async function receiveCommits(repository: string, pack: WorkingTreePack, ref: string): Promise<void> {
  if (pack.bundle === null) {
    const known = await runGit(["cat-file", "-e", `${pack.head}^{commit}`], { cwd: repository });
    if (known.code !== 0) await runGit(["fetch", "--quiet", "--all"], { cwd: repository, timeoutMs: GIT_TIMEOUT_MS });
    await gitStep(["update-ref", ref, pack.head], { cwd: repository }).catch(() => {
      throw new ConflictError(`commit ${pack.head} is not in ${repository}: push the branch, or fetch it there, and move again`);
    });
    return;
  }
  const bundle = pack.bundle;
  await inTempDir(async (dir) => {
    const file = join(dir, "branch.bundle");
    writeFileSync(file, Buffer.from(bundle, "base64"));
    if ((await runGit(["bundle", "verify", "--quiet", file], { cwd: repository })).code !== 0) {
      await runGit(["fetch", "--quiet", "--all"], { cwd: repository, timeoutMs: GIT_TIMEOUT_MS });
    }
    const fetched = await runGit(["fetch", "--quiet", file, `HEAD:${ref}`], { cwd: repository, timeoutMs: GIT_TIMEOUT_MS });
    if (fetched.code !== 0) {
      throw new ConflictError(`the branch's commits could not be added to ${repository} (${fetched.stderr.trim()}): fetch its base there and move again`);
    }
  });
}

/** Applies the pack's uncommitted changes to the working tree at `cwd` (left unstaged, untracked files untracked). */
export async function applyChanges(cwd: string, pack: WorkingTreePack): Promise<void> {
  if (pack.patch === "") return;
  await inTempDir(async (dir) => {
    const file = join(dir, "changes.patch");
    writeFileSync(file, pack.patch);
    await gitStep(["apply", "--binary", "--whitespace=nowarn", file], { cwd, timeoutMs: GIT_TIMEOUT_MS });
  });
}
