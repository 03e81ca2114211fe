import type { SessionSearchMatch } from "../../../schemas/sessions.ts";

/** Where a session's conversation matched a search: the server's plain-text snippet, its matched words marked. */
export function SearchSnippet({ match }: { match: SessionSearchMatch }) {
  const pieces: Array<{ text: string; marked: boolean }> = [];
  let at = 0;
  for (const { start, end } of match.highlights) {
    if (start < at || end <= start) continue;
    pieces.push({ text: match.snippet.slice(at, start), marked: false }, { text: match.snippet.slice(start, end), marked: true });
    at = end;
  }
  pieces.push({ text: match.snippet.slice(at), marked: false });
  return <span class="search-snippet quiet">{pieces.map((piece, index) => (piece.marked ? <mark key={index}>{piece.text}</mark> : piece.text))}</span>;
}
