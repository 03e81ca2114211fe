import type { GitProgress } from "../schemas/git.ts";

export type ProgressLine = Pick<GitProgress, "phase" | "percent">;

/** A phase with a percent ("Writing objects:  45% (9/20)"), the remote's too ("remote: Counting objects:  3% …"). */
const WITH_PERCENT = /^((?:remote: )?[A-Za-z][A-Za-z ]*?):\s+(\d{1,3})% /;
/** What `--progress` adds besides the percent lines: counts, thread notes and totals, which git prints only with it. */
const PROGRESS_ONLY = /^(?:remote: )?(?:[A-Za-z][A-Za-z ]*: \d+, done\.|Delta compression using up to \d+ threads|Total \d+ \(delta \d+\).*)\s*$/;

/** One line of git's stderr as progress: a phase with its percent, or what the remote said (`remote: …`, no percent). */
export function parseProgressLine(line: string): ProgressLine | undefined {
  const match = WITH_PERCENT.exec(line);
  if (match) return { phase: match[1]!, percent: Math.min(100, Number(match[2])) };
  const said = line.trimEnd();
  return said.startsWith("remote: ") && said.length > "remote: ".length ? { phase: said, percent: null } : undefined;
}

/**
 * git's stderr without what `--progress` added (percent lines, which end in `\r`, counts and totals), so an
 * answer or an error says what it said without it; the remote's own words stay.
 */
export function withoutProgress(stderr: string): string {
  const kept: string[] = [];
  for (const line of stderr.split("\n")) {
    const parts = line.split("\r").filter((part) => !WITH_PERCENT.test(part) && !PROGRESS_ONLY.test(part));
    if (parts.length > 0 || line.length === 0) kept.push(parts.join(""));
  }
  return kept.join("\n");
}

/** The shortest time between two progress events of one operation, but for a new phase or a phase's 100 %. */
export const PROGRESS_INTERVAL_MS = 250;

/**
 * Turns git's stderr lines into progress handed to `report`, a few a second at most: a phase's first line,
 * its 100 % line, and otherwise one line an interval (a remote's chatter included).
 */
export function throttledProgress(now: () => number, report: (progress: ProgressLine) => void): (line: string) => void {
  let last: (ProgressLine & { at: number }) | undefined;
  return (line) => {
    const progress = parseProgressLine(line);
    if (!progress) return;
    const at = now();
    const samePhase = last?.phase === progress.phase;
    if (samePhase && progress.percent === last?.percent) return;
    const newPercentPhase = !samePhase && progress.percent !== null;
    const finished = progress.percent === 100;
    if (last && !newPercentPhase && !finished && at - last.at < PROGRESS_INTERVAL_MS) return;
    last = { ...progress, at };
    report(progress);
  };
}
