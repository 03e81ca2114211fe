import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// Commits need an identity; CI machines have no git config of their own.
const IDENTITY = {
  GIT_AUTHOR_NAME: "Atrium Test",
  GIT_AUTHOR_EMAIL: "test@atrium.invalid",
  GIT_COMMITTER_NAME: "Atrium Test",
  GIT_COMMITTER_EMAIL: "test@atrium.invalid",
};

export function git(args: string[], cwd?: string): string {
  const result = Bun.spawnSync(["git", ...args], { cwd, env: { ...process.env, ...IDENTITY }, stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
  return result.stdout.toString().trim();
}

export interface BareRepo {
  /** The bare repository, standing in for a remote. */
  bare: string;
  url: string;
  /** A working clone used to make commits and push them. */
  work: string;
}

/**
 * A bare repository with one commit on `main` (and `files` extra files, for a clone large enough to
 * report progress), plus a working clone of it.
 */
export function makeBareRepo(root: string, name = "repo", files = 0): BareRepo {
  const bare = join(root, `${name}.git`);
  const work = join(root, `${name}-work`);
  git(["init", "--quiet", "--bare", bare]);
  git(["symbolic-ref", "HEAD", "refs/heads/main"], bare); // --initial-branch needs git 2.28
  git(["clone", "--quiet", bare, work]);
  writeFileSync(join(work, "README.md"), `# ${name}\n`);
  if (files > 0) {
    mkdirSync(join(work, "data"));
    for (let i = 0; i < files; i++) writeFileSync(join(work, "data", `f${i}.txt`), `${i} ${crypto.randomUUID().repeat(20)}\n`);
  }
  git(["add", "."], work);
  git(["commit", "--quiet", "-m", "first"], work);
  git(["push", "--quiet", "origin", "HEAD:main"], work);
  return { bare, url: `file://${bare}`, work };
}

/** A plain folder that is a git repository with an origin remote pointing at `bare`. */
export function makeCheckout(root: string, bare: string, name: string): string {
  const folder = join(root, name);
  git(["clone", "--quiet", bare, folder]);
  return folder;
}
