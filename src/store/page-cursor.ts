import { InvalidInputError } from "../errors.ts";

/** A page of a list read in a fixed order, and where the next page starts (null on the last page). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/**
 * Keyset cursors: the sort key of the last item of a page (e.g. updatedAt and id), made opaque. A page
 * read after it starts right past that item whatever was added or removed meanwhile, and costs the
 * same whichever page it is (no OFFSET).
 */
export function encodeCursor(key: string[]): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export const NOT_OUR_CURSOR = "cursor: not a cursor this list gave out (take it from the Link header of the previous page)";

export function decodeCursor(cursor: string, parts: number): string[] {
  try {
    const key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(key) && key.length === parts && key.every((part) => typeof part === "string")) return key;
  } catch {
    // not ours
  }
  throw new InvalidInputError(NOT_OUR_CURSOR);
}

/** The page of `rows` read with one row more than `limit`: that extra row says whether a next page exists. */
export function pageOf<R, T>(rows: R[], limit: number, keyOf: (row: R) => string[], toItem: (row: R) => T): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items: items.map(toItem), next: rows.length > limit && last ? encodeCursor(keyOf(last)) : null };
}

/** A page as the interface sends it: its items already serialised (UTF-8 JSON). */
export interface SerializedPage {
  json: Uint8Array<ArrayBuffer>;
  next: string | null;
}

/** A page with the global event cursor read just before it: a client follows events from there and misses nothing. */
export interface PageAtCursor extends SerializedPage {
  eventCursor: number;
}

/**
 * Pages of a list kept serialised until the table they come from changes (its repository's `revision`):
 * a list is read far more often than it changes, and each read cost a query and a serialisation. Each
 * page is handed out with the event cursor read just before it (`eventCursor`): a change made after the
 * cursor comes as an event, one made before is in the page. (The cursor as published: what may still
 * wait to be stored is a reply's streamed text, which no list shows, so a list read writes nothing.)
 */
export class KeptPages {
  private revision = -1;
  private readonly pages = new Map<string, SerializedPage>();

  constructor(
    private readonly eventCursor: () => number,
    private readonly maxPages = 64,
  ) {}

  get<T>(key: string, revision: number, read: () => Page<T>): PageAtCursor {
    const eventCursor = this.eventCursor();
    if (revision !== this.revision) {
      this.pages.clear();
      this.revision = revision;
    }
    let page = this.pages.get(key);
    if (!page) {
      const { items, next } = read();
      page = { json: new TextEncoder().encode(JSON.stringify(items)), next };
      if (this.pages.size >= this.maxPages) this.pages.delete(this.pages.keys().next().value!);
      this.pages.set(key, page);
    }
    return { ...page, eventCursor };
  }
}
