import { NotFoundError } from "../errors.ts";

/** A hunk's `@@ -a,b +c,d @@` part: what names it, whatever git writes after it (the function it is in). */
export function hunkKey(header: string): string {
  const match = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/.exec(header.trim());
  return match ? match[0] : header.trim();
}

/**
 * A patch of one file holding only the named hunks of `diff` (one file's `git diff` output): the file's
 * header lines, then each named hunk as git wrote it, in the diff's order. 404 for a name the diff lacks.
 */
export function patchOfHunks(diff: string, path: string, headers: string[]): string {
  const lines = diff.split("\n");
  const firstHunk = lines.findIndex((line) => line.startsWith("@@ "));
  if (firstHunk < 0) throw new NotFoundError(`${path} has no hunks to pick from`);
  const hunks: string[][] = [];
  for (const line of lines.slice(firstHunk)) {
    if (line.startsWith("@@ ")) hunks.push([line]);
    // Every line of a hunk starts with its mark (` `, `+`, `-`, `\`); the empty one is the text's end.
    else if (line !== "") hunks.at(-1)?.push(line);
  }
  const wanted = new Set(headers.map(hunkKey));
  const chosen = hunks.filter((hunk) => wanted.delete(hunkKey(hunk[0]!)));
  const missing = [...wanted][0];
  if (missing !== undefined) throw new NotFoundError(`${path} has no hunk ${missing} in its diff`);
  return `${[...lines.slice(0, firstHunk), ...chosen.flat()].join("\n")}\n`;
}
