import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type DiffLine, type DiffRow, diffRows, splitRows } from "./diff-rows.ts";
import { type Highlighter, languageOfPath } from "./highlight.ts";
import { type HighlightedPiece, overlayRuns } from "./highlighted-pieces.ts";
import { useHighlighter } from "./use-highlighter.ts";

const SIGN = { context: " ", removed: "−", added: "+" } as const;

/** A line's pieces: coloured where the highlighter gave classes, the changed words marked. */
function Pieces({ pieces }: { pieces: readonly HighlightedPiece[] }) {
  return (
    <>
      {pieces.map((piece, index) => {
        const coloured = piece.classes ? (
          <span key={index} class={piece.classes}>
            {piece.text}
          </span>
        ) : (
          piece.text
        );
        return piece.changed ? <mark key={index}>{coloured}</mark> : coloured;
      })}
    </>
  );
}

/**
 * Each line as highlighted on its own (a diff shows lines, not whole files), worked out once per diff:
 * a page that draws again every frame (a streaming reply) must not run the grammars again.
 */
function colouredLines(rows: DiffRow[], highlighter: Highlighter | undefined, language: string): Map<DiffLine, HighlightedPiece[]> {
  const coloured = new Map<DiffLine, HighlightedPiece[]>();
  for (const row of rows) {
    if (row.kind === "skipped") continue;
    const text = row.pieces.map((piece) => piece.text).join("");
    coloured.set(row, highlighter ? overlayRuns(row.pieces, highlighter.runs(text, language)) : row.pieces.map((piece) => ({ ...piece, classes: "" })));
  }
  return coloured;
}

/** Wide enough for two columns of code side by side (the diff's own width: a side panel stays unified). */
const SIDE_BY_SIDE_PX = 700;

const countLines = (rows: DiffRow[]) => ({
  added: rows.filter((row) => row.kind === "added").length,
  removed: rows.filter((row) => row.kind === "removed").length,
});

/** "+3 −1", coloured. */
export function LineCounts({ added, removed }: { added: number | null; removed: number | null }) {
  if (added === null || removed === null) return null;
  return (
    <>
      <span class="diff-added">+{added}</span> <span class="diff-removed">−{removed}</span>
    </>
  );
}

const skippedText = (count: number) => `⋯ ${count} unchanged line${count === 1 ? "" : "s"}`;

/**
 * A file's change as ACP sends it (the old text, null for a new file, and the new text): unified with
 * line numbers on a phone or in a narrow column, side by side where it is wide, the words that changed
 * in a line marked.
 */
export function DiffView({ path, oldText, newText }: { path: string; oldText: string | null; newText: string }) {
  const rows = useMemo(() => diffRows(oldText, newText), [oldText, newText]);
  const { added, removed } = countLines(rows);
  return (
    <figure class="diff" aria-label={`Changes to ${path}`}>
      <figcaption>
        <span class="diff-path">{path}</span> {oldText === null && <span class="quiet">new file</span>} <LineCounts added={added} removed={removed} />
      </figcaption>
      <DiffTable rows={rows} language={languageOfPath(path)} />
    </figure>
  );
}

/** A diff's rows: unified with line numbers where it is narrow, side by side where it is wide. */
export function DiffTable({ rows, language }: { rows: DiffRow[]; language: string }) {
  const highlighter = useHighlighter(language);
  const coloured = useMemo(() => colouredLines(rows, highlighter, language), [rows, highlighter, language]);
  const box = useRef<HTMLDivElement>(null);
  const [sideBySide, setSideBySide] = useState(false);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setSideBySide(element.clientWidth >= SIDE_BY_SIDE_PX));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return (
    <div class="diff-scroll" ref={box}>
      {sideBySide ? <SplitTable rows={rows} coloured={coloured} /> : <UnifiedTable rows={rows} coloured={coloured} />}
    </div>
  );
}

interface TableProps {
  rows: DiffRow[];
  /** Each line's pieces, coloured (colouredLines). */
  coloured: Map<DiffLine, HighlightedPiece[]>;
}

function UnifiedTable({ rows, coloured }: TableProps) {
  return (
    <table class="diff-unified">
      <tbody>
        {rows.map((row, index) =>
          row.kind === "skipped" ? (
            <tr key={index} class="diff-skipped">
              <td colSpan={4}>{skippedText(row.count)}</td>
            </tr>
          ) : (
            <tr key={index} class={`diff-${row.kind}`}>
              <td class="diff-number">{row.oldNumber ?? ""}</td>
              <td class="diff-number">{row.newNumber ?? ""}</td>
              <td class="diff-sign">{SIGN[row.kind]}</td>
              <td class="diff-text">
                <Pieces pieces={coloured.get(row) ?? []} />
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function SplitTable({ rows, coloured }: TableProps) {
  const split = useMemo(() => splitRows(rows), [rows]);
  return (
    <table class="diff-split">
      <tbody>
        {split.map((row, index) =>
          row.skipped !== undefined ? (
            <tr key={index} class="diff-skipped">
              <td colSpan={4}>{skippedText(row.skipped)}</td>
            </tr>
          ) : (
            <tr key={index}>
              <td class="diff-number">{row.left?.oldNumber ?? ""}</td>
              <td class={`diff-text diff-${row.left?.kind ?? "empty"}`}>{row.left && <Pieces pieces={coloured.get(row.left) ?? []} />}</td>
              <td class="diff-number">{row.right?.newNumber ?? ""}</td>
              <td class={`diff-text diff-${row.right?.kind ?? "empty"}`}>{row.right && <Pieces pieces={coloured.get(row.right) ?? []} />}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}
