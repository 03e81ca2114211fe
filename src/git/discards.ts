import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Discard, GitSelection } from "../schemas/git.ts";
import { runGit } from "./git-runner.ts";
import { gitStep, LITERAL_PATHS } from "./git-step.ts";
import { pathsOf, resolveSelection } from "./selection.ts";
import { snapshotTree, withPrivateIndex } from "./snapshot-tree.ts";
import type { RepositoryStatus } from "./working-tree-changes.ts";

const REF_PREFIX = "refs/atrium/discarded/";
const ID_PATTERN = /^dsc_[0-9a-z]{20}$/;
// Whose name the keeping commits bear: they are Atrium's, and the machine may have no git identity.
const KEEPER = { GIT_AUTHOR_NAME: "Atrium", GIT_AUTHOR_EMAIL: "atrium@localhost", GIT_COMMITTER_NAME: "Atrium", GIT_COMMITTER_EMAIL: "atrium@localhost" };

/**
 * Discards changes undoably. Before anything is thrown away, the files it touches are kept in a commit
 * under `refs/atrium/discarded/<id>`: its tree is the working tree as it was (untracked files included),
 * its first parent the index as it was, its second the working tree as the discard left it, its third HEAD.
 * Undo puts those files back, index and working tree, unless they changed since the discard.
 */
export class Discards {
  constructor(private readonly clock: Clock) {}

  async discard(status: RepositoryStatus, selection: GitSelection): Promise<Discard> {
    const { files, patches } = await resolveSelection(status, selection);
    const paths = [...new Set([...pathsOf(files), ...patches.map(({ change }) => change.path)])].sort();
    const cwd = status.root;
    // Every hunk must come out of the working tree before anything is touched.
    for (const { patch } of patches) await gitStep(["apply", "-R", "--check"], { cwd, input: patch });
    const index = await this.commitOf((await gitStep(["write-tree"], { cwd })).stdout.trim(), [], cwd, "index");
    const before = await snapshotTree(cwd, paths);

    const untracked = files.filter((change) => change.status === "untracked");
    const tracked = pathsOf(files.filter((change) => change.status !== "untracked"));
    if (tracked.length > 0) await gitStep(["restore", `--source=${status.base}`, "--staged", "--worktree", "--", ...tracked], { cwd });
    for (const change of untracked) rmSync(join(cwd, change.path), { force: true });
    for (const { patch } of patches) {
      await gitStep(["apply", "-R", "--whitespace=nowarn"], { cwd, input: patch });
      const staged = await runGit(["apply", "--cached", "-R", "--check"], { cwd, input: patch, env: LITERAL_PATHS });
      if (staged.code === 0) await gitStep(["apply", "--cached", "-R"], { cwd, input: patch });
    }

    const after = await this.commitOf(await snapshotTree(cwd, paths), [], cwd, "after");
    const id = newId("dsc");
    const message = `atrium discard ${id}\n\n${JSON.stringify({ paths })}`;
    const kept = await this.commitOf(before, [index, after, ...(status.head ? [status.head] : [])], cwd, message);
    await gitStep(["update-ref", `${REF_PREFIX}${id}`, kept], { cwd });
    return { id, ref: `${REF_PREFIX}${id}`, paths };
  }

  async undo(status: RepositoryStatus, id: string): Promise<void> {
    const cwd = status.root;
    const ref = `${REF_PREFIX}${id}`;
    const kept = ID_PATTERN.test(id) ? await runGit(["rev-parse", "--verify", "-q", `${ref}^{commit}`], { cwd }) : undefined;
    if (kept?.code !== 0) throw new NotFoundError(`${status.root} has no discard ${id} to undo`);
    const commit = kept.stdout.trim();
    const body = (await gitStep(["cat-file", "commit", commit], { cwd })).stdout;
    const { paths } = JSON.parse(body.slice(body.indexOf("\n\n{") + 2)) as { paths: string[] };

    const changed = (await gitStep(["diff", "--name-only", "-z", `${commit}^2^{tree}`, await snapshotTree(cwd, paths)], { cwd })).stdout;
    const since = changed.split("\0").filter(Boolean);
    if (since.length > 0) throw new ConflictError(`changed since the discard, so not overwritten: ${since.join(", ")}`);

    const inKept = (await gitStep(["ls-tree", "-z", "--name-only", commit, "--", ...paths], { cwd })).stdout.split("\0").filter(Boolean);
    for (const path of paths.filter((candidate) => !inKept.includes(candidate))) rmSync(join(cwd, path), { force: true });
    if (inKept.length > 0) {
      await withPrivateIndex(
        cwd,
        async (env) => {
          await gitStep(["read-tree", commit], { cwd, env });
          await gitStep(["checkout-index", "-f", "--", ...inKept], { cwd, env });
        },
        true,
      );
    }
    const indexed = (await gitStep(["ls-tree", "-z", `${commit}^1`, "--", ...paths], { cwd })).stdout;
    await gitStep(["update-index", "--force-remove", "--", ...paths], { cwd });
    if (indexed) await gitStep(["update-index", "-z", "--index-info"], { cwd, input: indexed });
    await gitStep(["update-ref", "-d", ref, commit], { cwd });
  }

  private async commitOf(tree: string, parents: string[], cwd: string, message: string): Promise<string> {
    const seconds = Math.floor(this.clock.now() / 1000);
    const date = `@${seconds} +0000`;
    const env = { ...KEEPER, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
    const args = ["commit-tree", tree, ...parents.flatMap((parent) => ["-p", parent]), "-m", message];
    return (await gitStep(args, { cwd, env })).stdout.trim();
  }
}
