import type { StyledRun } from "./ansi-text.ts";
import type { LinePiece } from "./diff-rows.ts";

/** A piece of a diff's line with its colour: `changed` from the word diff, `classes` from the highlighter. */
export interface HighlightedPiece extends LinePiece {
  classes: string;
}

/**
 * Lays a line's highlight runs over its word-diff pieces (both cover the same text): each result is cut
 * where either of them changes, so a changed word keeps its mark and its colour.
 */
export function overlayRuns(pieces: readonly LinePiece[], runs: readonly StyledRun[]): HighlightedPiece[] {
  const result: HighlightedPiece[] = [];
  let runIndex = 0;
  let runUsed = 0;
  for (const piece of pieces) {
    let pieceUsed = 0;
    while (pieceUsed < piece.text.length) {
      const run = runs[runIndex];
      // Runs that do not cover the whole line (they should) leave the rest plain.
      const runLeft = run ? run.text.length - runUsed : Number.POSITIVE_INFINITY;
      const length = Math.min(piece.text.length - pieceUsed, runLeft);
      if (length > 0) result.push({ text: piece.text.slice(pieceUsed, pieceUsed + length), changed: piece.changed, classes: run?.classes ?? "" });
      pieceUsed += length;
      runUsed += length;
      if (run && runUsed === run.text.length) {
        runIndex++;
        runUsed = 0;
      }
    }
  }
  return result;
}
