import { useRef, useState } from "preact/hooks";
import type { Project } from "../../../schemas/projects.ts";
import type { SessionDetail } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { Alert } from "../shared/use-action.tsx";
import { PageHeading } from "../shell/page-heading.tsx";
import { type FilesOpen, filesHref, pageHref, sessionHref } from "../shell/router.ts";
import { type FilesPlace, nameOf } from "./file-api.ts";
import { FileSearch } from "./file-search.tsx";
import { FileView } from "./file-view.tsx";
import { FolderView } from "./folder-view.tsx";
import { useFilesChanges } from "./use-files-changes.ts";

/** Whose files the page shows: a project's (its first folder), or a session's (the folder it works in). */
export interface FilesOwner {
  kind: "project" | "session";
  id: string;
}

async function readPlace(owner: FilesOwner): Promise<FilesPlace> {
  const id = encodeURIComponent(owner.id);
  if (owner.kind === "project") {
    const project = await api<Project>("GET", `/v1/projects/${id}`);
    return { projectId: project.id, sessionId: null, name: project.name, folder: project.locations[0]?.folderPath ?? null };
  }
  const { session } = await api<SessionDetail>("GET", `/v1/sessions/${id}`);
  return { projectId: session.projectId, sessionId: session.id, name: session.title, folder: session.cwd };
}

/** The folders from the root to `path`, each a link up; the last is where the page is. */
function Breadcrumb({ owner, place, open }: { owner: FilesOwner; place: FilesPlace; open: FilesOpen }) {
  const parts = open.path ? open.path.split("/") : [];
  const crumbs = [{ name: place.name, path: "" }, ...parts.map((name, index) => ({ name, path: parts.slice(0, index + 1).join("/") }))];
  return (
    <nav class="file-breadcrumb" aria-label="Path">
      <ol>
        {crumbs.map((crumb, index) => {
          const last = index === crumbs.length - 1;
          return (
            // Keyed by where they lead: the link tapped goes with the page it was on, so the new heading takes the focus.
            <li key={`${crumb.path}:${last}`}>
              {index > 0 && (
                <span class="separator" aria-hidden="true">
                  /
                </span>
              )}
              {last ? (
                <span aria-current="page">{crumb.name}</span>
              ) : (
                <a href={filesHref(owner.kind, owner.id, { kind: "folder", path: crumb.path })}>{crumb.name}</a>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

/**
 * A project's or a session's files, from any browser, a phone's first: the folder listed (folders first,
 * a tap opens one, the path leads back up), a file by name as it is typed, lines by their content, and a
 * file shown (text coloured with line numbers, an image, a binary's size) and edited safely.
 */
export function FilesPage({ owner, open }: { owner: FilesOwner; open: FilesOpen }) {
  const [place, setPlace] = useState<FilesPlace | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [showIgnored, setShowIgnored] = useState(false);
  const placeNow = useRef<FilesPlace | null>(null);
  const change = useFilesChanges(
    () => placeNow.current?.projectId ?? null,
    owner.kind === "session" ? owner.id : null,
    () => placeNow.current?.folder ?? null,
    async () => {
      const read = await readPlace(owner);
      placeNow.current = read;
      setPlace(read);
      setError(null);
    },
    setError,
  );
  const heading = open.path ? nameOf(open.path) : place ? `Files · ${place.name}` : "Files";
  return (
    <section class="files-page">
      <header class="files-header">
        <a href={owner.kind === "project" ? pageHref("projects") : sessionHref(owner.id)} class="back">
          ← {owner.kind === "project" ? "Projects" : "Session"}
        </a>
        {/* Keyed by what is open: each navigation draws the heading anew, which then takes the focus (page-heading.tsx). */}
        <PageHeading key={`${open.kind}:${open.path}`} text={heading} />
      </header>
      <Alert error={error} />
      {place === null ? (
        !error && <p class="quiet">Loading…</p>
      ) : (
        <>
          <div class="file-tools">
            <FileSearch place={place} mode="name" label="Go to file" placeholder="Go to file by name" />
            <FileSearch place={place} mode="content" label="Search in files" placeholder="Search in files" />
          </div>
          <Breadcrumb owner={owner} place={place} open={open} />
          {open.kind === "folder" ? (
            <>
              <label class="file-ignored">
                <input type="checkbox" checked={showIgnored} onChange={(event) => setShowIgnored(event.currentTarget.checked)} />
                Show ignored files
              </label>
              <FolderView key={open.path} place={place} path={open.path} showIgnored={showIgnored} change={change} />
            </>
          ) : (
            <FileView key={open.path} place={place} path={open.path} line={open.line} change={change} />
          )}
        </>
      )}
    </section>
  );
}
