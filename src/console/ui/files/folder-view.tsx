import { useEffect, useState } from "preact/hooks";
import type { FileEntry } from "../../../schemas/project-files.ts";
import { readPage } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import { Alert } from "../shared/use-action.tsx";
import { filesHref } from "../shell/router.ts";
import { type FilesPlace, filesPath, sizeText } from "./file-api.ts";
import type { FilesChange } from "./use-files-changes.ts";

/** How many entries a page of the listing asks for. */
const PAGE_SIZE = 200;

const GIT_STATUS_MARKS: Record<string, string> = {
  modified: "M",
  added: "A",
  deleted: "D",
  renamed: "R",
  untracked: "U",
  conflicted: "!",
  ignored: "I",
};

/** A change through the Files routes to something in this folder (or to the folder itself). */
const touches = (change: FilesChange, folder: string) =>
  change.path === null ||
  [change.path, change.fromPath].some(
    (path) => path !== null && (path === folder || (path.startsWith(folder ? `${folder}/` : "") && !path.slice(folder ? folder.length + 1 : 0).includes("/"))),
  );

/** A folder's, a file's or a link's outline (drawn, not an emoji: a phone without an emoji font shows boxes). */
function EntryIcon({ type }: { type: FileEntry["type"] }) {
  const shape =
    type === "dir"
      ? "M2 4.5A1.5 1.5 0 0 1 3.5 3h3l1.5 1.5h4.5A1.5 1.5 0 0 1 14 6v5.5a1.5 1.5 0 0 1-1.5 1.5h-9A1.5 1.5 0 0 1 2 11.5z"
      : type === "symlink"
        ? "M4 2.5h5l3 3v8H4zM6 10.5l3.5-3.5M7 7h2.5v2.5"
        : "M4 2.5h5l3 3v8H4zM9 2.5v3h3";
  return (
    <svg class={`file-icon ${type}`} viewBox="0 0 16 16" width="18" height="18" aria-hidden="true">
      <path d={shape} />
    </svg>
  );
}

/** One folder's entries, folders first (as the server orders them), each a link that opens it; read again when a change touches it. */
export function FolderView({ place, path, showIgnored, change }: { place: FilesPlace; path: string; showIgnored: boolean; change: FilesChange | null }) {
  const [entries, setEntries] = useState<FileEntry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reads, setReads] = useState(0);
  useEffect(() => {
    if (change && touches(change, path)) setReads((count) => count + 1);
  }, [change]);
  useEffect(() => {
    let current = true;
    readPage<FileEntry>(filesPath(place, "", { path, limit: String(PAGE_SIZE), ...(showIgnored ? { ignored: "true" } : {}) })).then(
      (page) => {
        if (!current) return;
        setEntries(page.items);
        setNext(page.next);
        setError(null);
      },
      (failure: unknown) => current && setError(failureText(failure)),
    );
    return () => {
      current = false;
    };
  }, [path, showIgnored, reads]);
  const more = () => {
    if (!next) return;
    readPage<FileEntry>(next).then(
      (page) => {
        setEntries((shown) => [...(shown ?? []), ...page.items]);
        setNext(page.next);
      },
      (failure: unknown) => setError(failureText(failure)),
    );
  };
  const owner = place.sessionId ? ({ kind: "session", id: place.sessionId } as const) : ({ kind: "project", id: place.projectId } as const);
  return (
    <>
      <Alert error={error} />
      {entries === null ? (
        !error && <p class="quiet">Loading…</p>
      ) : entries.length === 0 ? (
        <p class="quiet">This folder is empty.</p>
      ) : (
        <ul class="file-entries" aria-label="Files and folders">
          {entries.map((entry) => (
            <li key={entry.path}>
              <a
                href={filesHref(owner.kind, owner.id, { kind: entry.type === "dir" ? "folder" : "file", path: entry.path })}
                class={`file-entry ${entry.type}`}
              >
                <EntryIcon type={entry.type} />
                <span class="file-name">
                  {entry.name}
                  {entry.type === "dir" && <span class="visually-hidden">, folder</span>}
                  {entry.type === "symlink" && <span class="visually-hidden">, link</span>}
                </span>
                {entry.gitStatus && (
                  <span class={`git-status ${entry.gitStatus}`} title={entry.gitStatus}>
                    <span aria-hidden="true">{GIT_STATUS_MARKS[entry.gitStatus]}</span>
                    <span class="visually-hidden">, {entry.gitStatus}</span>
                  </span>
                )}
                {entry.type === "file" && <span class="file-size quiet">{sizeText(entry.size)}</span>}
              </a>
            </li>
          ))}
        </ul>
      )}
      {next && (
        <button type="button" class="quiet-button" onClick={more}>
          More entries
        </button>
      )}
    </>
  );
}
