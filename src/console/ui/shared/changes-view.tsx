import { useEffect, useMemo, useState } from "preact/hooks";
import type { ChangedFile, ChangeList, FileDiff } from "../../../schemas/changes.ts";
import { api } from "./api.ts";
import { patchRows } from "./diff-rows.ts";
import { DiffTable, LineCounts } from "./diff-view.tsx";
import { languageOfPath } from "./highlight.ts";
import { Alert, useAction } from "./use-action.tsx";

const STATUS_LABELS: Record<ChangedFile["status"], string> = {
  added: "added",
  modified: "modified",
  deleted: "deleted",
  renamed: "renamed",
  typechange: "type changed",
  conflicted: "conflicted",
  untracked: "new",
};

/** One changed file: its status and counts, and its diff once opened (read from the server then). */
function ChangedFileRow({ source, file }: { source: string; file: ChangedFile }) {
  const [diff, setDiff] = useState<FileDiff | null>(null);
  const [open, setOpen] = useState(false);
  const action = useAction();
  // Parsed once per diff read: the page draws again on every event while a session streams.
  const rows = useMemo(() => (diff?.diff ? patchRows(diff.diff) : []), [diff]);
  const toggle = () => {
    setOpen(!open);
    if (!open && !diff) void action.run(async () => setDiff(await api<FileDiff>("GET", `${source}/changes/diff?path=${encodeURIComponent(file.path)}`)));
  };
  return (
    <li class="changed-file" data-path={file.path}>
      <button type="button" class="changed-file-name" aria-expanded={open} onClick={toggle}>
        <span class="diff-path">{file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}</span>{" "}
        <span class={`change-status ${file.status}`}>{STATUS_LABELS[file.status]}</span> <LineCounts added={file.added} removed={file.removed} />
      </button>
      <Alert error={action.error} />
      {open && diff && (
        <figure class="diff" aria-label={`Changes to ${file.path}`}>
          {diff.diff === null ? (
            <p class="quiet">{diff.binary ? "A binary file: no diff to show." : "Over 1 MiB: named, not shown."}</p>
          ) : (
            <DiffTable rows={rows} language={languageOfPath(file.path)} />
          )}
        </figure>
      )}
    </li>
  );
}

/**
 * What changed in a folder against HEAD (a session's worktree or folder, a project's location, a
 * worktree): the files with their status and line counts, each one's diff on demand, more files a page
 * at a time. Read when asked (or at once, `readAtOnce`) and on Refresh. `source` is the API path the
 * changes hang off.
 */
export function ChangesView({ source, readAtOnce = false }: { source: string; readAtOnce?: boolean }) {
  const [list, setList] = useState<ChangeList | null>(null);
  const action = useAction();
  const read = () => action.run(async () => setList(await api<ChangeList>("GET", `${source}/changes`)));
  const readMore = (cursor: string) =>
    action.run(async () => {
      const more = await api<ChangeList>("GET", `${source}/changes?cursor=${encodeURIComponent(cursor)}`);
      setList((current) => current && { ...more, files: [...current.files, ...more.files] });
    });
  useEffect(() => {
    if (readAtOnce) void read();
  }, [source]);
  return (
    <div class="changes-view">
      <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => void read()}>
        {list ? "Refresh" : "Show changes"}
      </button>
      <Alert error={action.error} />
      {list && list.files.length === 0 && <p class="quiet">Nothing changed since {list.head ? list.head.slice(0, 7) : "the start"}.</p>}
      {list && list.files.length > 0 && (
        <ul class="changed-files">
          {list.files.map((file) => (
            <ChangedFileRow key={`${file.path}:${file.status}:${file.added}:${file.removed}`} source={source} file={file} />
          ))}
        </ul>
      )}
      {list?.next && (
        <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => void readMore(list.next!)}>
          More files
        </button>
      )}
    </div>
  );
}

/** A "Changes" button that opens the folder's changes beneath it (a project's location, a worktree). */
export function ChangesToggle({ source, name }: { source: string; name: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class="quiet-button small" aria-expanded={open} onClick={() => setOpen(!open)}>
        Changes<span class="visually-hidden"> in {name}</span>
      </button>
      {open && <ChangesView source={source} readAtOnce />}
    </>
  );
}
