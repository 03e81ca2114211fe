/**
 * User text as an FTS5 query and FTS5 snippets as plain text with ranges: the user's text never reaches
 * FTS5's query syntax, and a snippet never carries markup a client would have to escape.
 */

/** What unicode61 keeps in a token: letters, digits, marks, private-use characters. */
const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
/** Enough words for any search a person types; more only slow the query down. */
const MAX_WORDS = 16;
/** A last word shorter than this is matched whole: a one-letter prefix would walk most of the index. */
const MIN_PREFIX_LENGTH = 2;

/**
 * Every word of `text` must occur (in any order), each quoted so that nothing in it is FTS5 syntax; the
 * last one also as a prefix while the user is still typing it (the text does not end after it). Null
 * when the text holds no word (`"`, `*`, `(`): it matches no conversation.
 */
export function ftsQuery(text: string): string | null {
  const words = [...text.matchAll(WORD)].map((match) => match[0]).slice(0, MAX_WORDS);
  if (words.length === 0) return null;
  const last = words[words.length - 1]!;
  const typing = text.endsWith(last) && last.length >= MIN_PREFIX_LENGTH;
  return words.map((word, index) => `"${word}"${typing && index === words.length - 1 ? "*" : ""}`).join(" ");
}

/** Private-use characters around each matched word in snippet() output; taken out again by `snippetRanges`. */
export const MATCH_OPEN = "\uE000";
export const MATCH_CLOSE = "\uE001";

/** A snippet's plain text, and where its matched words are (UTF-16 offsets into `snippet`, `end` exclusive). */
export interface SnippetRanges {
  snippet: string;
  highlights: Array<{ start: number; end: number }>;
}

/** Takes the markers out of a snippet, noting where they were; markers in the stored text itself are dropped too. */
export function snippetRanges(marked: string): SnippetRanges {
  const highlights: SnippetRanges["highlights"] = [];
  let text = "";
  let start: number | null = null;
  for (const part of marked.split(/([\uE000\uE001])/)) {
    if (part === MATCH_OPEN) start = text.length;
    else if (part === MATCH_CLOSE) {
      if (start !== null && text.length > start) highlights.push({ start, end: text.length });
      start = null;
    } else text += part;
  }
  return { snippet: text, highlights };
}
