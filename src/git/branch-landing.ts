import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import type { MergeBody } from "../schemas/git.ts";
import { gitOutput, runGit } from "./git-runner.ts";
import { gitStep, outputOf } from "./git-step.ts";

export interface Landing {
  /** The repository both branches are in. */
  repository: string;
  branch: string;
  into: string;
  strategy: MergeBody["strategy"];
  message?: string;
}

/**
 * Lands `branch` on `into` by merge, squash or rebase, worked out in a temporary worktree of its own so
 * that no one's working tree sees a half-done merge. On a conflict `into` is untouched and the
 * conflicting files are named (409). Once done, `into` moves to the result: fast-forwarded in the folder
 * that has it checked out (refused, 409, when that folder's changes are in the way), or its ref moved
 * when no folder has it, and only if it has not moved meanwhile. Answers `into`'s new commit.
 */
export async function landBranch(landing: Landing, clock: Clock): Promise<string> {
  const cwd = landing.repository;
  const start = await gitOutput(["rev-parse", "--verify", "-q", `refs/heads/${landing.into}`], { cwd });
  if (!start || landing.into.startsWith("-")) throw new NotFoundError(`${cwd} has no local branch ${landing.into}`);
  const tip = await gitOutput(["rev-parse", "--verify", "-q", `refs/heads/${landing.branch}`], { cwd });
  if (!tip) throw new NotFoundError(`${cwd} has no branch ${landing.branch}`);
  const date = `@${Math.floor(clock.now() / 1000)} +0000`;
  const env = { GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date };
  const scratch = mkdtempSync(join(tmpdir(), "atrium-merge-"));
  const work = join(scratch, "work");
  try {
    await gitStep(["worktree", "add", "--quiet", "--detach", work, landing.strategy === "rebase" ? tip : start], { cwd });
    const steps = stepsOf(landing, start, tip);
    for (const [index, step] of steps.entries()) {
      const result = await runGit(step, { cwd: work, env, timeoutMs: 10 * 60_000 });
      if (result.code === 0) continue;
      const conflicts = ((await gitOutput(["diff", "--name-only", "--diff-filter=U"], { cwd: work })) ?? "").split("\n").filter(Boolean);
      if (conflicts.length > 0) {
        throw new ConflictError(
          `${landing.branch} does not land on ${landing.into} without conflicts in: ${conflicts.join(", ")}; ${landing.into} is untouched`,
        );
      }
      throw new ConflictError(`git ${step[0]} (step ${index + 1} of ${steps.length}) failed: ${outputOf(result)}; ${landing.into} is untouched`);
    }
    const result = (await gitStep(["rev-parse", "HEAD"], { cwd: work })).stdout.trim();
    await moveBranch(cwd, landing.into, start, result);
    return result;
  } finally {
    await runGit(["worktree", "remove", "--force", work], { cwd });
    rmSync(scratch, { recursive: true, force: true });
    await runGit(["worktree", "prune"], { cwd });
  }
}

function stepsOf(landing: Landing, start: string, tip: string): string[][] {
  const message = landing.message ? ["-m", landing.message] : [];
  switch (landing.strategy) {
    case "merge":
      return [["merge", "--no-ff", "--no-edit", ...message, tip]];
    case "squash":
      return [
        ["merge", "--squash", tip],
        ["commit", "--quiet", "-m", landing.message ?? `Squashed ${landing.branch} onto ${landing.into}`],
      ];
    case "rebase":
      return [["rebase", "--quiet", start]];
  }
}

/** Moves `into` from `from` to `to`: in the folder that has it checked out by a fast-forward, else by its ref. */
async function moveBranch(repository: string, into: string, from: string, to: string): Promise<void> {
  const listed = (await gitStep(["worktree", "list", "--porcelain"], { cwd: repository })).stdout.split("\n\n");
  const holder = listed.find((entry) => entry.split("\n").includes(`branch refs/heads/${into}`));
  const folder = holder?.split("\n")[0]?.replace(/^worktree /, "");
  if (folder) await gitStep(["merge", "--ff-only", "--quiet", to], { cwd: folder });
  else await gitStep(["update-ref", `refs/heads/${into}`, to, from], { cwd: repository });
}
