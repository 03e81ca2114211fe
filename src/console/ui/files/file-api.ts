import { ApiError, storedToken } from "../shared/api.ts";
import { reachingFetch } from "../shared/connection.ts";

/** Where the Files view works: a project's first folder, or the folder a session works in. */
export interface FilesPlace {
  projectId: string;
  sessionId: string | null;
  /** The project's name or the session's title, for headings and labels. */
  name: string;
  /** The folder shown, as the server names it: the project's first location, or the session's folder. */
  folder: string | null;
}

/** A Files route's path for this place, with the folder choice (`sessionId`) and the query given. */
export function filesPath(place: FilesPlace, route: "" | "/content" | "/search", query: Record<string, string> = {}): string {
  const params = new URLSearchParams({ ...(place.sessionId ? { sessionId: place.sessionId } : {}), ...query });
  return `/v1/projects/${encodeURIComponent(place.projectId)}/files${route}?${params}`;
}

/** A file's bytes as the content route answers them (not JSON): the token as the bearer header, a refusal as an ApiError. */
export async function contentRequest(
  path: string,
  init: { method: "GET" | "HEAD" | "PUT"; headers?: Record<string, string>; body?: string },
): Promise<Response> {
  const token = storedToken();
  const response = await reachingFetch(path, { ...init, headers: { ...init.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  if (!response.ok) {
    const answer = (await response.json().catch(() => ({}))) as { error?: string };
    throw new ApiError(response.status, answer.error ?? `the server answered ${response.status}`);
  }
  return response;
}

/** What the viewer needs to know of a file before reading it whole. */
export interface FileHead {
  etag: string;
  kind: "text" | "binary";
  contentType: string;
  size: number;
}

export const fileHead = (response: Response): FileHead => ({
  etag: response.headers.get("etag") ?? "",
  kind: response.headers.get("atrium-file-kind") === "binary" ? "binary" : "text",
  contentType: response.headers.get("content-type") ?? "",
  size: Number(response.headers.get("content-length") ?? 0),
});

/** A file's text as read, with the ETag a write names in `If-Match`. */
export interface TextRead {
  text: string;
  etag: string;
}

export async function readText(place: FilesPlace, path: string): Promise<TextRead> {
  const response = await contentRequest(filesPath(place, "/content", { path }), { method: "GET" });
  return { text: await response.text(), etag: response.headers.get("etag") ?? "" };
}

/** Writes the text over the version read (`If-Match`); a 412 (it changed since) throws an ApiError of that status. Resolves to the new ETag. */
export async function writeText(place: FilesPlace, path: string, text: string, etag: string): Promise<string> {
  const response = await contentRequest(filesPath(place, "/content", { path }), {
    method: "PUT",
    headers: { "if-match": etag, "content-type": "text/plain;charset=utf-8" },
    body: text,
  });
  return response.headers.get("etag") ?? ((await response.json()) as { etag: string }).etag;
}

/** "12.3 KiB". */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** The folder a path is in (`""`: the root). */
export const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf("/")));
export const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);
