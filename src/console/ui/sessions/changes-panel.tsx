import { useState } from "preact/hooks";
import type { ChangedFile, ChangeList, FileDiff } from "../../../schemas/changes.ts";
import { api } from "../shared/api.ts";
import { patchRows } from "../shared/diff-rows.ts";
import { DiffTable, LineCounts } from "../shared/diff-view.tsx";
import { languageOfPath } from "../shared/highlight.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

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
function ChangedFileRow({ sessionId, file }: { sessionId: string; file: ChangedFile }) {
  const [diff, setDiff] = useState<FileDiff | null>(null);
  const [open, setOpen] = useState(false);
  const action = useAction();
  const toggle = () => {
    setOpen(!open);
    if (!open && !diff)
      void action.run(async () => setDiff(await api<FileDiff>("GET", `/v1/sessions/${sessionId}/changes/diff?path=${encodeURIComponent(file.path)}`)));
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
            <DiffTable rows={patchRows(diff.diff)} language={languageOfPath(file.path)} />
          )}
        </figure>
      )}
    </li>
  );
}

/**
 * What changed in the session's folder against HEAD (its worktree, or the project's folder): the files
 * with their status and line counts, each one's diff on demand. Read when opened and on Refresh.
 */
export function ChangesPanel({ sessionId }: { sessionId: string }) {
  const [list, setList] = useState<ChangeList | null>(null);
  const action = useAction();
  const read = () => action.run(async () => setList(await api<ChangeList>("GET", `/v1/sessions/${sessionId}/changes`)));
  return (
    <section class="panel" aria-label="Changes">
      <h3>Changes</h3>
      <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => void read()}>
        {list ? "Refresh" : "Show changes"}
      </button>
      <Alert error={action.error} />
      {list && list.files.length === 0 && <p class="quiet">Nothing changed since {list.head ? list.head.slice(0, 7) : "the start"}.</p>}
      {list && list.files.length > 0 && (
        <ul class="changed-files">
          {list.files.map((file) => (
            <ChangedFileRow key={`${file.path}:${file.status}:${file.added}:${file.removed}`} sessionId={sessionId} file={file} />
          ))}
        </ul>
      )}
      {list?.next && <p class="quiet">More files changed than shown here.</p>}
    </section>
  );
}
