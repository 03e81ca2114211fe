import { useEffect, useMemo, useState } from "preact/hooks";
import { type DiffLine, type DiffRow, diffRows, splitRows } from "./diff-rows.ts";

const SIGN = { context: " ", removed: "−", added: "+" } as const;

function Pieces({ line }: { line: DiffLine }) {
  return <>{line.pieces.map((piece, index) => (piece.changed ? <mark key={index}>{piece.text}</mark> : piece.text))}</>;
}

/** Wide enough for two columns of code side by side. */
const SIDE_BY_SIDE = "(min-width: 900px)";

function useSideBySide(): boolean {
  const [wide, setWide] = useState(() => matchMedia(SIDE_BY_SIDE).matches);
  useEffect(() => {
    const query = matchMedia(SIDE_BY_SIDE);
    const changed = () => setWide(query.matches);
    query.addEventListener("change", changed);
    return () => query.removeEventListener("change", changed);
  }, []);
  return wide;
}

const skippedText = (count: number) => `⋯ ${count} unchanged line${count === 1 ? "" : "s"}`;

/**
 * A file's change as ACP sends it (the old text, null for a new file, and the new text): unified with
 * line numbers on a phone, side by side on a wide screen, the words that changed in a line marked.
 */
export function DiffView({ path, oldText, newText }: { path: string; oldText: string | null; newText: string }) {
  const rows = useMemo(() => diffRows(oldText, newText), [oldText, newText]);
  const sideBySide = useSideBySide();
  const added = rows.filter((row) => row.kind === "added").length;
  const removed = rows.filter((row) => row.kind === "removed").length;
  return (
    <figure class="diff" aria-label={`Changes to ${path}`}>
      <figcaption>
        <span class="diff-path">{path}</span> {oldText === null && <span class="quiet">new file</span>} <span class="diff-added">+{added}</span>{" "}
        <span class="diff-removed">−{removed}</span>
      </figcaption>
      <div class="diff-scroll">{sideBySide ? <SplitTable rows={rows} /> : <UnifiedTable rows={rows} />}</div>
    </figure>
  );
}

function UnifiedTable({ rows }: { rows: DiffRow[] }) {
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
                <Pieces line={row} />
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function SplitTable({ rows }: { rows: DiffRow[] }) {
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
              <td class={`diff-text diff-${row.left?.kind ?? "empty"}`}>{row.left && <Pieces line={row.left} />}</td>
              <td class="diff-number">{row.right?.newNumber ?? ""}</td>
              <td class={`diff-text diff-${row.right?.kind ?? "empty"}`}>{row.right && <Pieces line={row.right} />}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}
