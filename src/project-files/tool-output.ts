import { GIT_ENV } from "../git/git-runner.ts";

export interface ToolRun {
  command: string[];
  cwd: string;
  /** Written to its stdin, then closed. */
  input?: string;
  timeoutMs: number;
  /** Where the tool is looked up (the server's own PATH by default). */
  path?: string;
}

/**
 * Runs a tool (git, ripgrep) without a shell and hands `onRecord` each record of its output, split on
 * `separator`, until it returns false: then the tool is stopped, so a search reads only what a page needs.
 * Resolves with its exit code (null when it was stopped or timed out).
 */
export async function toolRecords(run: ToolRun, separator: string, onRecord: (record: string) => boolean): Promise<number | null> {
  const child = Bun.spawn(run.command, {
    cwd: run.cwd,
    env: { ...process.env, ...GIT_ENV, ...(run.path === undefined ? {} : { PATH: run.path }) },
    stdin: run.input === undefined ? "ignore" : Buffer.from(run.input),
    stdout: "pipe",
    stderr: "ignore",
    timeout: run.timeoutMs,
  });
  const decoder = new TextDecoder();
  let pending = "";
  let stopped = false;
  try {
    for await (const chunk of child.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      const records = pending.split(separator);
      pending = records.pop() ?? "";
      for (const record of records) {
        if (!onRecord(record)) {
          stopped = true;
          return null;
        }
      }
    }
    if (pending !== "" && !onRecord(pending)) stopped = true;
  } finally {
    if (stopped) child.kill();
  }
  const code = await child.exited;
  return stopped || child.signalCode !== null ? null : code;
}

/** Runs a tool to its end and returns its output's records, or undefined when it failed. */
export async function toolOutput(run: ToolRun, separator: string): Promise<string[] | undefined> {
  const records: string[] = [];
  const code = await toolRecords(run, separator, (record) => {
    records.push(record);
    return true;
  });
  return code === 0 ? records : undefined;
}
