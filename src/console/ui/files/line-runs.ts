import type { StyledRun } from "../shared/ansi-text.ts";
import type { Highlighter } from "../shared/highlighter-api.ts";

/** Past this a file is shown plain: colouring it would hold the page longer than reading it plain. */
const MAX_HIGHLIGHTED = 200_000;

/** The text's lines, each as runs of highlighted text (one plain run a line without a highlighter). */
export function lineRuns(text: string, highlighter: Highlighter | undefined, language: string): StyledRun[][] {
  const runs = highlighter && text.length <= MAX_HIGHLIGHTED ? highlighter.runs(text, language) : [{ text, classes: "" }];
  const lines: StyledRun[][] = [[]];
  for (const run of runs) {
    const parts = run.text.split("\n");
    parts.forEach((part, index) => {
      if (index > 0) lines.push([]);
      if (part) lines.at(-1)!.push({ text: part, classes: run.classes });
    });
  }
  // A last newline ends the last line; it does not start one more.
  if (lines.length > 1 && lines.at(-1)!.length === 0 && text.endsWith("\n")) lines.pop();
  return lines;
}
