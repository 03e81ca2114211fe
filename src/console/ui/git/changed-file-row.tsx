import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { ChangedFile, FileDiff } from "../../../schemas/changes.ts";
import type { GitSelection } from "../../../schemas/git.ts";
import { api } from "../shared/api.ts";
import { patchRows } from "../shared/diff-rows.ts";
import { DiffTable, LineCounts } from "../shared/diff-view.tsx";
import { languageOfPath } from "../shared/highlight.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { type GitEdits, keepFocusIn } from "./git-actions.ts";
import { hunkPlace, type PatchHunk, patchHunks } from "./patch-hunks.ts";

const STATUS_LABELS: Record<ChangedFile["status"], string> = {
  added: "added",
  modified: "modified",
  deleted: "deleted",
  renamed: "renamed",
  typechange: "type changed",
  conflicted: "conflicted",
  untracked: "new",
};

const STAGED_LABELS: Record<ChangedFile["staged"], string | null> = { all: "staged", partly: "partly staged", none: null };

interface EditButtonsProps {
  /** What the buttons act on, for a screen reader: "a.txt", "lines 3–9 of a.txt". */
  name: string;
  staged: ChangedFile["staged"];
  selection: GitSelection;
  edits: GitEdits;
}

/**
 * Stage (or Unstage, once all of it is staged), Unstage beside it when part is, and Discard: thumb-sized,
 * each named for a screen reader. The first button stays the same element when its word changes, so the
 * focus stays on it; while git works the buttons say so instead of going (a disabled button drops the focus).
 */
function EditButtons({ name, staged, selection, edits }: EditButtonsProps) {
  const action = useAction();
  const group = useRef<HTMLDivElement>(null);
  const run = (call: () => Promise<void>) => {
    if (action.busy) return;
    void action.run(call).then(() => keepFocusIn(group.current));
  };
  const toggleWord = staged === "all" ? "Unstage" : "Stage";
  return (
    <>
      <div class="git-buttons" ref={group}>
        <button
          type="button"
          class="quiet-button small"
          aria-disabled={action.busy}
          onClick={() => run(() => (staged === "all" ? edits.unstage(selection) : edits.stage(selection)))}
        >
          {toggleWord}
          <span class="visually-hidden"> {name}</span>
        </button>
        {staged === "partly" && (
          <button type="button" class="quiet-button small" aria-disabled={action.busy} onClick={() => run(() => edits.unstage(selection))}>
            Unstage<span class="visually-hidden"> {name}</span>
          </button>
        )}
        <button type="button" class="quiet-button small git-discard" aria-disabled={action.busy} onClick={() => run(() => edits.discard(selection, name))}>
          Discard<span class="visually-hidden"> {name}</span>
        </button>
      </div>
      <Alert error={action.error} />
    </>
  );
}

/** One hunk of a modified file: where it is, whether it is staged, its buttons, its lines. */
function HunkPart({ path, hunk, staged, edits }: { path: string; hunk: PatchHunk; staged: boolean; edits: GitEdits }) {
  // A hunk's own rows: the unchanged lines before it are the file's, not the hunk's.
  const rows = useMemo(() => patchRows(hunk.text).filter((row, index) => index > 0 || row.kind !== "skipped"), [hunk.text]);
  const name = `${hunkPlace(hunk)} of ${path}`;
  return (
    <section class="hunk" aria-label={name} data-hunk={hunk.key}>
      <div class="hunk-head">
        <span class="hunk-place">
          {hunkPlace(hunk)}
          {staged && <span class="staged-mark"> staged</span>}
        </span>
        <EditButtons name={name} staged={staged ? "all" : "none"} selection={{ hunks: [{ path, header: hunk.header }] }} edits={edits} />
      </div>
      <DiffTable rows={rows} language={languageOfPath(path)} />
    </section>
  );
}

/** A file's diff: hunk by hunk with their own buttons for a modified file (the only kind git takes hunks of), whole otherwise. */
function FileChanges({ diff, edits }: { diff: FileDiff; edits: GitEdits }) {
  const hunks = useMemo(() => (diff.diff && diff.status === "modified" ? patchHunks(diff.diff) : []), [diff]);
  const rows = useMemo(() => (diff.diff && hunks.length === 0 ? patchRows(diff.diff) : []), [diff, hunks]);
  if (diff.diff === null) return <p class="quiet">{diff.binary ? "A binary file: no diff to show." : "Over 1 MiB: named, not shown."}</p>;
  if (hunks.length === 0) return <DiffTable rows={rows} language={languageOfPath(diff.path)} />;
  return (
    <>
      {hunks.map((hunk) => (
        <HunkPart key={hunk.key} path={diff.path} hunk={hunk} staged={diff.stagedHunks.includes(hunk.key)} edits={edits} />
      ))}
    </>
  );
}

/**
 * One changed file: its status, counts and how much is staged, its buttons, and its diff once opened
 * (read from the server then, and again each time the list is read while it is open).
 */
export function ChangedFileRow({ source, file, edits }: { source: string; file: ChangedFile; edits: GitEdits }) {
  const [diff, setDiff] = useState<FileDiff | null>(null);
  const [open, setOpen] = useState(false);
  const action = useAction();
  const readDiff = () => action.run(async () => setDiff(await api<FileDiff>("GET", `${source}/changes/diff?path=${encodeURIComponent(file.path)}`)));
  // A new reading of the list (after any change to the repository) reads an open diff again.
  useEffect(() => {
    if (open) void readDiff();
  }, [file, open]);
  const stagedLabel = STAGED_LABELS[file.staged];
  return (
    <li class="changed-file" data-path={file.path}>
      <div class="changed-file-head">
        <button type="button" class="changed-file-name" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span class="diff-path">{file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}</span>{" "}
          <span class={`change-status ${file.status}`}>{STATUS_LABELS[file.status]}</span> <LineCounts added={file.added} removed={file.removed} />
          {stagedLabel && <span class="staged-mark"> {stagedLabel}</span>}
        </button>
        <EditButtons name={file.path} staged={file.staged} selection={{ paths: [file.path] }} edits={edits} />
      </div>
      <Alert error={action.error} />
      {open && diff && (
        <figure class="diff" aria-label={`Changes to ${file.path}`}>
          <FileChanges diff={diff} edits={edits} />
        </figure>
      )}
    </li>
  );
}
