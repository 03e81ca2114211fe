// The Files view's addresses (the router's part for it), apart from the router so a test can import them without the DOM.

/** What the Files view shows: a folder (`""` the root), or a file, at a line when a search found it there. */
export type FilesOpen = { kind: "folder"; path: string } | { kind: "file"; path: string; line?: number };

/** The files of a project (its first folder) or of a session (its worktree or folder): a folder listed, or a file shown. */
export function filesHref(kind: "project" | "session", id: string, open: FilesOpen = { kind: "folder", path: "" }): string {
  const base = `#/${kind}s/${encodeURIComponent(id)}/files`;
  if (open.kind === "folder") return open.path ? `${base}/folder/${encodeURIComponent(open.path)}` : base;
  return `${base}/file/${encodeURIComponent(open.path)}${open.line ? `/${open.line}` : ""}`;
}

/** The Files view an address names after its owner (`projects/<id>` or `sessions/<id>`), or null for another page. */
export function parseFilesRoute(
  page: string | undefined,
  id: string | undefined,
  part: string | undefined,
  kind: string | undefined,
  path: string | undefined,
  line: string | undefined,
): { owner: { kind: "project" | "session"; id: string }; open: FilesOpen } | null {
  if (part !== "files" || !id || (page !== "projects" && page !== "sessions")) return null;
  return { owner: { kind: page === "projects" ? "project" : "session", id: decodeURIComponent(id) }, open: parseFilesOpen(kind, path, line) };
}

function parseFilesOpen(kind: string | undefined, path: string | undefined, line: string | undefined): FilesOpen {
  if (kind === "file" && path) return { kind: "file", path: decodeURIComponent(path), ...(line && /^\d+$/.test(line) ? { line: Number(line) } : {}) };
  return { kind: "folder", path: kind === "folder" && path ? decodeURIComponent(path) : "" };
}
