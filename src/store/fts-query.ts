/**
 * User text as an FTS5 query, and snippets cut from a matched item's text: the user's text never reaches
 * FTS5's query syntax, and a snippet is plain text with the offsets of its matched words (no markup a
 * client would have to escape).
 */

/** What unicode61 keeps in a token: letters, digits, marks, private-use characters. */
const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const WORD_UNIT = /[\p{L}\p{N}\p{M}\p{Co}]/u;
/** Enough words for any search a person types; more only slow the query down. */
const MAX_WORDS = 16;
/** A last word shorter than this is matched whole: a one-letter prefix would walk most of the index. */
const MIN_PREFIX_LENGTH = 2;
/** Words a snippet holds, and how many of them come before the first matched word. */
const SNIPPET_WORDS = 16;
const WORDS_BEFORE = 4;
/** How far back a snippet looks for its words before the match (longer words are cut). */
const LOOK_BACK = 256;

/** The words of a search (at most MAX_WORDS); the last one is also a prefix while the user is still typing it. */
export interface SearchWords {
  words: string[];
  typing: boolean;
}

/** Null when the text holds no word (`"`, `*`, `(`): it matches no conversation. */
export function searchWords(text: string): SearchWords | null {
  const words = [...text.matchAll(WORD)].map((match) => match[0]).slice(0, MAX_WORDS);
  const last = words.at(-1);
  if (last === undefined) return null;
  return { words, typing: text.endsWith(last) && last.length >= MIN_PREFIX_LENGTH };
}

const isPrefix = (search: SearchWords, index: number) => search.typing && index === search.words.length - 1;

/** Every word must occur (in any order), each quoted so that nothing in it is FTS5 syntax. */
export function ftsQuery(search: SearchWords): string {
  return search.words.map((word, index) => `"${word}"${isPrefix(search, index) ? "*" : ""}`).join(" ");
}

/** UTF-16 offsets, `end` exclusive. */
interface Range {
  start: number;
  end: number;
}

/** A snippet's plain text, and where its matched words are (offsets into `snippet`). */
export interface SnippetRanges {
  snippet: string;
  highlights: Range[];
}

/** A word as the index folds it (remove_diacritics 2): accents off, lower case. */
const foldWord = (word: string) => word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
/** One UTF-16 unit folded, kept as it is when folding would change its length (offsets must stay put). */
const foldUnit = (unit: string) => {
  const folded = foldWord(unit);
  return folded.length === 1 ? folded : unit;
};
/**
 * `text` folded unit by unit, so that an offset into it is the same offset into `text`: lower case at
 * once (unless a letter's lower case is longer), then every unit beyond printable ASCII on its own.
 */
function foldText(text: string): string {
  const lower = text.toLowerCase();
  return (lower.length === text.length ? lower : text).replace(/[^ -~\t\n\r]/g, foldUnit);
}

const wordEnd = (text: string, at: number) => {
  let end = at;
  while (end < text.length && WORD_UNIT.test(text[end]!)) end++;
  return end;
};

/**
 * The next place from `from` on where `term` (folded) is a whole word in `folded`, or the start of one
 * when it is the word being typed; the range covers the whole word, as FTS5 highlights it.
 */
function nextOccurrence(folded: string, term: string, prefix: boolean, from: number): Range | null {
  for (let at = folded.indexOf(term, from); at !== -1; at = folded.indexOf(term, at + 1)) {
    if (at > 0 && WORD_UNIT.test(folded[at - 1]!)) continue;
    const end = wordEnd(folded, at + term.length);
    if (end === at + term.length || prefix) return { start: at, end };
  }
  return null;
}

/** The text from a few words before `first` to SNIPPET_WORDS words in all (to its end when fewer follow). */
function windowAround(text: string, first: number): Range {
  const lookFrom = Math.max(0, first - LOOK_BACK);
  const before = [...text.slice(lookFrom, first).matchAll(WORD)].slice(-WORDS_BEFORE);
  const start = before.length < WORDS_BEFORE && lookFrom === 0 ? 0 : lookFrom + (before[0]?.index ?? first - lookFrom);
  const after = new RegExp(WORD.source, "gu");
  after.lastIndex = first;
  let end = first;
  for (let words = before.length; words < SNIPPET_WORDS; words++) {
    const word = after.exec(text);
    if (!word) return { start, end: text.length };
    end = word.index + word[0].length;
  }
  return { start, end };
}

/**
 * About SNIPPET_WORDS words of a matched item's text around the first place its search's words occur,
 * with "…" where the text was cut. Cut here from the text the page already read, rather than by
 * FTS5's snippet(), which runs the search again for the row and tokenises the whole item. Folding
 * follows unicode61 for case and precomposed accents; a word it folds otherwise is not highlighted
 * (the snippet then starts at the item's beginning).
 */
export function snippetOf(text: string, search: SearchWords): SnippetRanges {
  const folded = foldText(text);
  // A word of marks alone folds to nothing, and nothing is found everywhere.
  const terms = search.words.map((word, index) => ({ term: foldWord(word), prefix: isPrefix(search, index) })).filter(({ term }) => term !== "");
  const earliest = Math.min(...terms.map(({ term, prefix }) => nextOccurrence(folded, term, prefix, 0)?.start ?? folded.length));
  const { start, end } = windowAround(text, earliest < folded.length ? earliest : 0);
  const lead = start > 0 ? "…" : "";
  const highlights: Range[] = [];
  for (const { term, prefix } of terms) {
    for (let hit = nextOccurrence(folded, term, prefix, start); hit && hit.end <= end; hit = nextOccurrence(folded, term, prefix, hit.end)) {
      highlights.push({ start: hit.start - start + lead.length, end: hit.end - start + lead.length });
    }
  }
  return { snippet: `${lead}${text.slice(start, end)}${end < text.length ? "…" : ""}`, highlights: highlights.sort((a, b) => a.start - b.start) };
}
