import type { EventLog } from "../events/event-log.ts";
import type { ProjectFolders } from "../projects/project-folders.ts";
import type { FileEntry, FileListQuery, FolderChoice, FileMoved, FileSearchQuery, FileWritten, ProjectFileEvents } from "../schemas/project-files.ts";
import type { Store } from "../store/database.ts";
import type { Page, PageAtCursor } from "../store/page-cursor.ts";
import type { FileContent, FileRead, Preconditions } from "./file-content.ts";
import type { FileEntries } from "./file-entries.ts";
import type { FileNameIndex } from "./file-name-index.ts";
import type { FileSearch } from "./file-search.ts";
import { FolderAccess } from "./folder-access.ts";

export interface ProjectFilesDeps {
  folders: ProjectFolders;
  store: Store;
  events: EventLog<typeof ProjectFileEvents>;
  entries: FileEntries;
  content: FileContent;
  search: FileSearch;
  names: FileNameIndex;
}

type Change = (typeof ProjectFileEvents)["files.changed"]["static"]["change"];

/**
 * A project's files, in the folder a request names (a location, a worktree, a session's folder): listed,
 * searched, read and changed inside that folder only (FolderAccess), each change told as `files.changed`.
 */
export class ProjectFiles {
  constructor(private readonly deps: ProjectFilesDeps) {}

  async list(projectId: string, query: FileListQuery): Promise<PageAtCursor> {
    const eventCursor = this.deps.events.cursor();
    return serialized(await this.deps.entries.list(this.access(projectId, query), query.path ?? "", query), eventCursor);
  }

  async search(projectId: string, query: FileSearchQuery): Promise<PageAtCursor> {
    const eventCursor = this.deps.events.cursor();
    const access = this.access(projectId, query);
    const page = query.mode === "content" ? await this.deps.search.byContent(access, query) : await this.deps.search.byName(access, query);
    return serialized(page, eventCursor);
  }

  read(projectId: string, choice: FolderChoice & { path: string }, request: { range?: string; ifRange?: string }): FileRead {
    return this.deps.content.read(this.access(projectId, choice), choice.path, request);
  }

  write(projectId: string, choice: FolderChoice & { path: string }, bytes: Uint8Array, conditions: Preconditions): FileWritten {
    const access = this.access(projectId, choice);
    const written = this.deps.content.write(access, choice.path, bytes, conditions);
    this.changed(projectId, access, written.created ? "created" : "modified", written.entry.path, null);
    return written;
  }

  remove(projectId: string, choice: FolderChoice & { path: string }, conditions: Preconditions): FileEntry {
    const access = this.access(projectId, choice);
    const removed = this.deps.content.remove(access, choice.path, conditions);
    this.changed(projectId, access, "deleted", removed.path, null);
    return removed;
  }

  move(projectId: string, choice: FolderChoice, from: string, to: string): FileMoved {
    const access = this.access(projectId, choice);
    const moved = this.deps.content.move(access, from, to);
    this.changed(projectId, access, "moved", moved.to.path, moved.from.path);
    return moved;
  }

  private access(projectId: string, choice: FolderChoice): FolderAccess {
    return new FolderAccess(this.deps.folders.resolve({ ...choice, projectId }).cwd);
  }

  private changed(projectId: string, access: FolderAccess, change: Change, path: string, fromPath: string | null): void {
    this.deps.names.invalidate(access.root);
    this.deps.store.transaction(() => this.deps.events.append("files.changed", projectId, { projectId, folderPath: access.root, change, path, fromPath }));
  }
}

function serialized<T>(page: Page<T>, eventCursor: number): PageAtCursor {
  return { json: new TextEncoder().encode(JSON.stringify(page.items)), next: page.next, eventCursor };
}
