import { diffLines, diffWordsWithSpace } from "diff";

/** A piece of a changed line: `changed` marks the words that differ from the line it replaces. */
export interface LinePiece {
  text: string;
  changed: boolean;
}

export interface DiffLine {
  kind: "context" | "removed" | "added";
  oldNumber: number | null;
  newNumber: number | null;
  pieces: LinePiece[];
}

/** Unchanged lines left out between two changes, shown as one row. */
export interface SkippedLines {
  kind: "skipped";
  count: number;
}

export type DiffRow = DiffLine | SkippedLines;

/** A row of the side-by-side view: the old line on the left, the new on the right (either may be absent). */
export interface SplitRow {
  left: DiffLine | null;
  right: DiffLine | null;
  skipped?: number;
}

/** Unchanged lines kept around each change. */
const CONTEXT = 3;

const splitLines = (text: string) => {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
};

/**
 * The rows of a unified diff between two texts (an ACP diff's oldText, null for a new file, and
 * newText): each line numbered on its side, unchanged runs far from a change folded, and a removed
 * line followed by its replacement marked word by word.
 */
export function diffRows(oldText: string | null, newText: string): DiffRow[] {
  const lines: DiffLine[] = [];
  let oldNumber = 1;
  let newNumber = 1;
  for (const part of diffLines(oldText ?? "", newText)) {
    for (const text of splitLines(part.value)) {
      if (part.added) lines.push({ kind: "added", oldNumber: null, newNumber: newNumber++, pieces: [{ text, changed: false }] });
      else if (part.removed) lines.push({ kind: "removed", oldNumber: oldNumber++, newNumber: null, pieces: [{ text, changed: false }] });
      else lines.push({ kind: "context", oldNumber: oldNumber++, newNumber: newNumber++, pieces: [{ text, changed: false }] });
    }
  }
  markChangedWords(lines);
  return foldContext(lines);
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/**
 * The rows of a unified diff as `git diff` writes it (the Changes view's): its hunks' lines numbered
 * from their headers, the lines between hunks as folded rows, changed words marked.
 */
export function patchRows(patch: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let lines: DiffLine[] = [];
  let oldNumber = 0;
  let newNumber = 0;
  const flush = () => {
    markChangedWords(lines);
    rows.push(...lines);
    lines = [];
  };
  for (const line of splitLines(patch)) {
    const hunk = HUNK.exec(line);
    if (hunk) {
      flush();
      const nextOld = Number(hunk[1]);
      // Before the first hunk, and between two, unchanged lines git left out.
      const gap = nextOld - (oldNumber === 0 ? 1 : oldNumber);
      if (gap > 0) rows.push({ kind: "skipped", count: gap });
      oldNumber = nextOld;
      newNumber = Number(hunk[2]);
      continue;
    }
    if (oldNumber === 0 && newNumber === 0) continue; // the file header, before any hunk
    const text = line.slice(1);
    if (line.startsWith("+")) lines.push({ kind: "added", oldNumber: null, newNumber: newNumber++, pieces: [{ text, changed: false }] });
    else if (line.startsWith("-")) lines.push({ kind: "removed", oldNumber: oldNumber++, newNumber: null, pieces: [{ text, changed: false }] });
    else if (line.startsWith(" ")) lines.push({ kind: "context", oldNumber: oldNumber++, newNumber: newNumber++, pieces: [{ text, changed: false }] });
  }
  flush();
  return rows;
}

/** Pairs each run of removed lines with the added run after it, line by line, and marks the words that differ. */
function markChangedWords(lines: DiffLine[]): void {
  for (let index = 0; index < lines.length; ) {
    const removed: DiffLine[] = [];
    while (lines[index]?.kind === "removed") removed.push(lines[index++]!);
    const added: DiffLine[] = [];
    while (lines[index]?.kind === "added") added.push(lines[index++]!);
    if (removed.length === 0 && added.length === 0) index++;
    for (let pair = 0; pair < Math.min(removed.length, added.length); pair++) {
      const before = removed[pair]!;
      const after = added[pair]!;
      const parts = diffWordsWithSpace(before.pieces[0]!.text, after.pieces[0]!.text);
      before.pieces = parts.filter((part) => !part.added).map((part) => ({ text: part.value, changed: part.removed === true }));
      after.pieces = parts.filter((part) => !part.removed).map((part) => ({ text: part.value, changed: part.added === true }));
    }
  }
}

function foldContext(lines: DiffLine[]): DiffRow[] {
  const nearChange = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.kind === "context") return;
    for (let near = Math.max(0, index - CONTEXT); near <= Math.min(lines.length - 1, index + CONTEXT); near++) nearChange[near] = true;
  });
  const rows: DiffRow[] = [];
  for (let index = 0; index < lines.length; ) {
    if (nearChange[index]) {
      rows.push(lines[index++]!);
      continue;
    }
    let count = 0;
    while (index < lines.length && !nearChange[index]) {
      count++;
      index++;
    }
    rows.push({ kind: "skipped", count });
  }
  return rows;
}

/** The same rows side by side: context on both sides, each removed line beside the added line that replaces it. */
export function splitRows(rows: DiffRow[]): SplitRow[] {
  const split: SplitRow[] = [];
  for (let index = 0; index < rows.length; ) {
    const row = rows[index]!;
    if (row.kind === "skipped") {
      split.push({ left: null, right: null, skipped: row.count });
      index++;
    } else if (row.kind === "context") {
      split.push({ left: row, right: row });
      index++;
    } else {
      const removed: DiffLine[] = [];
      while ((rows[index] as DiffLine | undefined)?.kind === "removed") removed.push(rows[index++] as DiffLine);
      const added: DiffLine[] = [];
      while ((rows[index] as DiffLine | undefined)?.kind === "added") added.push(rows[index++] as DiffLine);
      for (let pair = 0; pair < Math.max(removed.length, added.length); pair++) split.push({ left: removed[pair] ?? null, right: added[pair] ?? null });
    }
  }
  return split;
}
