import { useEffect, useState } from "preact/hooks";
import { MarkdownText } from "./markdown-text.tsx";
import type { TranscriptDetailsPage } from "../../../schemas/transcript.ts";
import { api, failureText } from "../shared/api.ts";
import { ToolCallView } from "./tool-call-view.tsx";

type Entry = TranscriptDetailsPage["entries"][number];

/** Every entry of a reply's details, read page by page (at most 200 a page) to the end. */
async function readAllDetails(sessionId: string, itemId: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  let after: string | null = null;
  do {
    const query: string = after ? `?limit=200&after=${encodeURIComponent(after)}` : "?limit=200";
    const page: TranscriptDetailsPage = await api<TranscriptDetailsPage>("GET", `/v1/sessions/${sessionId}/transcript/${itemId}/details${query}`);
    entries.push(...page.entries);
    // While the reply generates, nextAfter stays a cursor to poll: stop at the end of what exists now.
    after = page.entries.length > 0 ? page.nextAfter : null;
  } while (after);
  return entries;
}

function DetailEntry({ entry }: { entry: Entry }) {
  const payload = entry.payload;
  if (payload.type === "thought")
    return (
      <li class="thought">
        <MarkdownText text={payload.text} />
      </li>
    );
  return (
    <li class="tool-call">
      <ToolCallView call={payload} />
    </li>
  );
}

/** A reply's thoughts and tool calls, read when opened and again when the session says they changed. */
export function TranscriptDetails({ sessionId, itemId, changes }: { sessionId: string; itemId: string; changes: number }) {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    readAllDetails(sessionId, itemId).then(
      (read) => current && setEntries(read),
      (failure) => current && setError(failureText(failure)),
    );
    return () => {
      current = false;
    };
  }, [sessionId, itemId, changes]);
  if (error) return <p class="error">{error}</p>;
  if (entries === null) return <p class="quiet">Loading…</p>;
  if (entries.length === 0) return <p class="quiet">No thoughts or tool calls.</p>;
  return (
    <ol class="details">
      {entries.map((entry) => (
        <DetailEntry key={entry.key} entry={entry} />
      ))}
    </ol>
  );
}
