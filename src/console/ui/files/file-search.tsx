import { useEffect, useState } from "preact/hooks";
import type { FileSearchHit } from "../../../schemas/project-files.ts";
import { api } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import { Alert } from "../shared/use-action.tsx";
import { filesHref } from "../shell/router.ts";
import { type FilesPlace, filesPath } from "./file-api.ts";

/** Typing pauses this long before the server is asked. */
const SEARCH_PAUSE_MS = 250;
/** How many hits a search shows. */
const HITS_SHOWN = 30;

interface FileSearchProps {
  place: FilesPlace;
  mode: "name" | "content";
  label: string;
  placeholder: string;
}

/**
 * A search over the folder's files, asked as typing pauses: by name (quick open: the best matches first)
 * or by content (each line found with its path and number). A hit is a link to the file (at its line);
 * following one clears the search.
 */
export function FileSearch({ place, mode, label, placeholder }: FileSearchProps) {
  const [text, setText] = useState("");
  const [hits, setHits] = useState<FileSearchHit[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const wanted = text.trim();
  useEffect(() => {
    if (wanted === "") {
      setHits(null);
      setError(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      api<FileSearchHit[]>("GET", filesPath(place, "/search", { q: wanted, mode, limit: String(HITS_SHOWN) })).then(
        (found) => {
          if (!current) return;
          setHits(found);
          setError(null);
        },
        (failure: unknown) => current && setError(failureText(failure)),
      );
    }, SEARCH_PAUSE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [wanted]);
  const owner = place.sessionId ? ({ kind: "session", id: place.sessionId } as const) : ({ kind: "project", id: place.projectId } as const);
  return (
    <search class="file-search">
      <input type="search" aria-label={label} placeholder={placeholder} value={text} onInput={(event) => setText(event.currentTarget.value)} />
      <Alert error={error} />
      {hits !== null && (
        <ul class="file-hits" aria-label={`${label}: ${hits.length === 0 ? "nothing found" : `${hits.length} found`}`}>
          {hits.length === 0 && <li class="quiet">Nothing found.</li>}
          {hits.map((hit) => (
            <li key={`${hit.path}:${hit.line ?? ""}`}>
              <a href={filesHref(owner.kind, owner.id, { kind: "file", path: hit.path, ...(hit.line ? { line: hit.line } : {}) })} onClick={() => setText("")}>
                <span class="file-hit-path">
                  {hit.path}
                  {hit.line !== null && <span class="quiet">:{hit.line}</span>}
                </span>
                {hit.snippet !== null && <code class="file-hit-snippet">{hit.snippet}</code>}
              </a>
            </li>
          ))}
        </ul>
      )}
    </search>
  );
}
