import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Commits need an identity; CI machines have no git config of their own.
const IDENTITY = {
  GIT_AUTHOR_NAME: "Atrium Test",
  GIT_AUTHOR_EMAIL: "test@atrium.invalid",
  GIT_COMMITTER_NAME: "Atrium Test",
  GIT_COMMITTER_EMAIL: "test@atrium.invalid",
};

/** Runs git (with `input` on its stdin, when given) and returns its trimmed output; throws when it fails. */
export function git(args: string[], cwd?: string, input?: string): string {
  const result = Bun.spawnSync(["git", ...args], {
    cwd,
    env: { ...process.env, ...IDENTITY },
    stdin: input === undefined ? "ignore" : Buffer.from(input),
    stderr: "pipe",
  });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
  return result.stdout.toString().trim();
}

export interface BareRepo {
  /** The bare repository, standing in for a remote. */
  bare: string;
  url: string;
  /** A working clone used to make commits and push them (cloned when first asked for). */
  readonly work: string;
}

/** A commit's files by path: each a text, or a symbolic link to `link`. */
export type RepoFiles = Record<string, string | { link: string }>;

/** `git fast-import`'s inline file: its mode, its exact length in bytes, then the bytes. */
function inlineFile(path: string, file: string | { link: string }): string {
  const [mode, content] = typeof file === "string" ? ["100644", file] : ["120000", file.link];
  return `M ${mode} inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}`;
}

/**
 * A bare repository with one commit on `main` (and `files` extra files, for a clone large enough to
 * report progress), plus a working clone of it.
 */
export function makeBareRepo(root: string, name = "repo", files = 0): BareRepo {
  const extra: RepoFiles = {};
  for (let i = 0; i < files; i++) extra[`data/f${i}.txt`] = `${i} ${crypto.randomUUID().repeat(20)}\n`;
  return makeBareRepoWith(root, name, { "README.md": `# ${name}\n`, ...extra });
}

/**
 * A bare repository whose one commit on `main` holds `files`, plus a working clone of it. The commit is
 * written by one `git fast-import`, not through a working tree: two git processes instead of six, and a
 * pack instead of loose objects.
 */
export function makeBareRepoWith(root: string, name: string, files: RepoFiles): BareRepo {
  const bare = join(root, `${name}.git`);
  const work = join(root, `${name}-work`);
  git(["init", "--quiet", "--bare", bare]);
  // What `git symbolic-ref HEAD refs/heads/main` writes (--initial-branch needs git 2.28).
  writeFileSync(join(bare, "HEAD"), "ref: refs/heads/main\n");
  importCommit(bare, files, "first", false);
  return bareRepoAt(bare, work);
}

/**
 * A copy of `template`'s bare repository as `name` under `root`: the same commits, made without a git
 * process, for tests that each need a repository of their own with the same content.
 */
export function copyBareRepo(template: BareRepo, root: string, name: string): BareRepo {
  const bare = join(root, `${name}.git`);
  cpSync(template.bare, bare, { recursive: true });
  return bareRepoAt(bare, join(root, `${name}-work`));
}

function bareRepoAt(bare: string, work: string): BareRepo {
  let cloned = false;
  return {
    bare,
    url: `file://${bare}`,
    get work() {
      if (!cloned) git(["clone", "--quiet", bare, work]);
      cloned = true;
      return work;
    },
  };
}

/** A new commit on the bare repository's `main` that writes `files` over what it held, as a push of one would. */
export function commitFiles(bare: string, files: RepoFiles, message: string): void {
  importCommit(bare, files, message, true);
}

function importCommit(bare: string, files: RepoFiles, message: string, onTop: boolean): void {
  const commit = [
    "commit refs/heads/main",
    `committer ${IDENTITY.GIT_COMMITTER_NAME} <${IDENTITY.GIT_COMMITTER_EMAIL}> ${Math.floor(Date.now() / 1000)} +0000`,
    `data ${Buffer.byteLength(message)}`,
    message,
    ...(onTop ? ["from refs/heads/main^0"] : []),
    ...Object.entries(files).map(([path, file]) => inlineFile(path, file)),
  ].join("\n");
  git(["fast-import", "--quiet"], bare, `${commit}\n`);
}

/** A plain folder that is a git repository with an origin remote pointing at `bare`. */
export function makeCheckout(root: string, bare: string, name: string): string {
  const folder = join(root, name);
  git(["clone", "--quiet", bare, folder]);
  return folder;
}

export interface FolderTemplate {
  /** Copies what `build` made into `folder` (made on the first call). */
  copyInto(folder: string): void;
  remove(): void;
}

/**
 * What every test of a file starts from alike (a repository, a remote and its clone), made once by
 * `build` in a folder of its own and copied into each test's folder: a copy is file writes where the
 * build is a git process a step. The template's path in a copied repository's configuration (a
 * clone's origin) becomes the copy's.
 */
export function folderTemplate(build: (folder: string) => void): FolderTemplate {
  let built: string | undefined;
  return {
    copyInto(folder) {
      if (built === undefined) {
        built = mkdtempSync(join(tmpdir(), "atrium-template-"));
        build(built);
      }
      cpSync(built, folder, { recursive: true });
      for (const name of readdirSync(folder, { recursive: true, encoding: "utf8" })) {
        if (!name.endsWith(".git/config")) continue;
        const config = readFileSync(join(folder, name), "utf8");
        if (config.includes(built)) writeFileSync(join(folder, name), config.replaceAll(built, folder));
      }
    },
    remove() {
      if (built !== undefined) rmSync(built, { recursive: true, force: true });
    },
  };
}
