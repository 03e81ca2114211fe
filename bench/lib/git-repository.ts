/** Runs git in `cwd`, with `input` on its stdin and `env` over this process's; throws when it fails. */
export function git(args: string[], cwd: string, input?: string, env?: Record<string, string>): void {
  const stdin = input === undefined ? "ignore" : Buffer.from(input);
  const result = Bun.spawnSync(["git", ...args], { cwd, stdin, stdout: "ignore", stderr: "pipe", env: { ...process.env, ...env } });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
}

/** A repository whose one commit holds `files` (path and text), written by `git fast-import` (fast for 100,000 files), then checked out. */
export function committedRepository(folder: string, files: Iterable<{ path: string; text: string }>): void {
  git(["init", "--quiet", folder], "/");
  let blobs = "";
  for (const { path, text } of files) blobs += `M 100644 inline ${path}\ndata ${Buffer.byteLength(text)}\n${text}\n`;
  git(["fast-import", "--quiet"], folder, `commit refs/heads/main\ncommitter Bench <bench@atrium.invalid> 1700000000 +0000\ndata 5\nseed\n${blobs}\n`);
  git(["checkout", "--quiet", "-f", "main"], folder);
}
