import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { ChangeList } from "../../../schemas/changes.ts";
import { api } from "../shared/api.ts";
import { followThenRead } from "../shared/event-stream.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { BranchBar } from "./branch-bar.tsx";
import { ChangedFileRow } from "./changed-file-row.tsx";
import { CommitBox } from "./commit-box.tsx";
import { DiscardNotice, type DiscardState } from "./discard-notice.tsx";
import { gitEdits } from "./git-actions.ts";
import { MergeBack } from "./merge-back.tsx";
import { PullRequestBox } from "./pull-request-box.tsx";

interface ChangesPanelProps {
  /** The API path the changes and git routes hang off: a session, a project's location, a worktree. */
  source: string;
  readAtOnce?: boolean;
  /** A session that runs in a worktree of its own (its API path): "Merge back" is offered. */
  mergeFrom?: string;
  /** A session's panel: its agent writes the commit message. */
  agentWrites?: boolean;
}

/**
 * What changed in a folder against HEAD, and the git to finish the work with: stage, unstage and
 * discard (undoably) a file or a hunk, commit, the branch with push and pull, a pull request, and a
 * worktree session's merge back. Read when asked (or at once, `readAtOnce`), then again after each
 * `git.changed` of its repository (whoever made the change), and on Refresh for an agent's own edits.
 */
export function ChangesPanel({ source, readAtOnce = false, mergeFrom, agentWrites = false }: ChangesPanelProps) {
  const [list, setList] = useState<ChangeList | null>(null);
  const [following, setFollowing] = useState(readAtOnce);
  const [problem, setProblem] = useState<string | null>(null);
  const [discarded, setDiscarded] = useState<DiscardState | null>(null);
  // Counts the list's readings: what else the panel shows (the branch) is read again with it.
  const [revision, setRevision] = useState(0);
  const root = useRef<string | null>(null);
  const action = useAction();
  const shown = (next: ChangeList) => {
    root.current = next.repositoryRoot;
    setList(next);
    setProblem(null);
    setRevision((count) => count + 1);
  };
  const readList = async () => shown(await api<ChangeList>("GET", `${source}/changes`));
  useEffect(() => {
    if (!following) return;
    return followThenRead(
      {
        kinds: ["git.changed"],
        onEvents: (events) => {
          if (events.some((event) => event.subjectId === root.current)) void action.run(readList);
        },
        onProblem: setProblem,
      },
      readList,
      setProblem,
    );
  }, [source, following]);
  const edits = useMemo(() => gitEdits(source, shown, (discard, what) => setDiscarded({ discard, what, undone: false })), [source]);
  const readMore = (cursor: string) =>
    action.run(async () => {
      const more = await api<ChangeList>("GET", `${source}/changes?cursor=${encodeURIComponent(cursor)}`);
      setList((current) => current && { ...more, files: [...current.files, ...more.files] });
    });
  return (
    <div class="changes-view git-panel">
      <button
        type="button"
        class="quiet-button small"
        aria-disabled={action.busy}
        onClick={() => (following ? action.busy || void action.run(readList) : setFollowing(true))}
      >
        {following ? "Refresh" : "Show changes"}
      </button>
      <Alert error={action.error ?? problem} />
      {list && <BranchBar source={source} repositoryRoot={list.repositoryRoot} revision={revision} onSwitched={shown} />}
      {discarded && (
        <DiscardNotice
          source={source}
          state={discarded}
          onUndone={(after) => {
            shown(after);
            setDiscarded({ ...discarded, undone: true });
          }}
          onDismiss={() => setDiscarded(null)}
        />
      )}
      {list && list.files.length === 0 && <p class="quiet">Nothing changed since {list.head ? list.head.slice(0, 7) : "the start"}.</p>}
      {list && list.files.length > 0 && (
        <ul class="changed-files" aria-label="Changed files">
          {list.files.map((file) => (
            <ChangedFileRow key={file.path} source={source} file={file} edits={edits} />
          ))}
        </ul>
      )}
      {list?.next && (
        <button type="button" class="quiet-button small" aria-disabled={action.busy} onClick={() => action.busy || void readMore(list.next!)}>
          More files
        </button>
      )}
      {list && <CommitBox source={source} agentWrites={agentWrites} />}
      {list?.branch && <PullRequestBox source={source} root={list.repositoryRoot} branch={list.branch} />}
      {list && mergeFrom && <MergeBack sessionPath={mergeFrom} />}
    </div>
  );
}

/** A "Changes" button that opens the folder's changes panel beneath it (a project's location, a worktree). */
export function ChangesToggle({ source, name }: { source: string; name: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class="quiet-button small" aria-expanded={open} onClick={() => setOpen(!open)}>
        Changes<span class="visually-hidden"> in {name}</span>
      </button>
      {open && <ChangesPanel source={source} readAtOnce />}
    </>
  );
}
