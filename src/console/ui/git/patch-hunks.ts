/** One hunk of a file's `git diff`: its `@@ -a,b +c,d @@` name (what the git routes take) and its own lines. */
export interface PatchHunk {
  /** The header as git wrote it (what follows the second `@@` included). */
  header: string;
  /** The `@@ -a,b +c,d @@` part: how a diff's `stagedHunks` name it. */
  key: string;
  /** Where it starts in the new file, and how many lines it spans there. */
  newStart: number;
  newCount: number;
  /** The hunk as a patch of its own: its header, then its lines. */
  text: string;
}

const HEADER = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of one file's unified diff, in order; the file's header lines before them are left out. */
export function patchHunks(patch: string): PatchHunk[] {
  const hunks: PatchHunk[] = [];
  let lines: string[] = [];
  const flush = () => {
    const header = lines[0];
    const match = header ? HEADER.exec(header) : null;
    if (header && match) {
      hunks.push({ header, key: match[0], newStart: Number(match[1]), newCount: match[2] === undefined ? 1 : Number(match[2]), text: `${lines.join("\n")}\n` });
    }
    lines = [];
  };
  for (const line of patch.split("\n")) {
    if (line.startsWith("@@ ")) flush();
    // Every line of a hunk starts with its mark (an empty context line is one space): "" is the text's end.
    if (line.startsWith("@@ ") || (lines.length > 0 && line !== "")) lines.push(line);
  }
  flush();
  return hunks;
}

/** "lines 3–9", "line 3", or "the start" (a hunk that only removes lines at the top). */
export function hunkPlace(hunk: PatchHunk): string {
  if (hunk.newCount === 0) return hunk.newStart === 0 ? "the start" : `after line ${hunk.newStart}`;
  return hunk.newCount === 1 ? `line ${hunk.newStart}` : `lines ${hunk.newStart}–${hunk.newStart + hunk.newCount - 1}`;
}
