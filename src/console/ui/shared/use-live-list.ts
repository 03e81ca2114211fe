import { useEffect, useReducer, useRef } from "preact/hooks";
import { readPage } from "./api.ts";
import { failureText } from "./failure-text.ts";
import { readEventCursor, type StreamedEvent, subscribe } from "./event-stream.ts";
import { readRetrying } from "./retrying-read.ts";

/** How an event changes a list: a record kept in place of the one with its id, or forgotten. */
export interface EventChanges<T> {
  keep(item: T): void;
  forget(id: string): void;
}

/** How the page's own calls change a list, at once, without waiting for their events (which then change nothing). */
export interface OwnChanges<T> extends EventChanges<T> {
  /** Puts the record in only if it is not there: an event about it may have come before the answer, and is newer. */
  add(item: T): void;
}

interface SourceParts<T> {
  /** The kinds to follow, as the stream's `kind=` patterns. */
  kinds: readonly string[];
  /** Applies one event through the changes; an event of another kind may change what the page keeps beside the list. */
  apply(event: StreamedEvent, changes: EventChanges<T>): void;
  /** The server's order; records it ranks alike stay in the order they came (the sort is stable). */
  compare(a: T, b: T): number;
  /** Whether a record belongs in the list searched for, as the server's `q` decides (absent: a list with no search). */
  matches?(item: T, search: string): boolean;
  /** Read with the first page (what else the page shows beside the list); resolves to the event cursor it was read at. */
  readAlso?(): Promise<number>;
  /** Set where an id is never used again: a late event about a forgotten record then does not list it again. */
  idsNeverReused?: boolean;
}

/** A list the server pages: each page names the next (`Link`) and the event cursor it was read at. */
interface PagedSource<T> extends SourceParts<T> {
  /** The path of the first page for a search (`""`: the whole list). */
  firstPage(search: string): string;
}

/** A list the server answers whole; its event cursor is read before it. */
interface WholeSource<T> extends SourceParts<T> {
  readAll(): Promise<T[]>;
}

/** Where a live list comes from; made once, at module level or in a first render (the hook reads it once). */
export type ListSource<T> = PagedSource<T> | WholeSource<T>;

export interface LiveList<T> extends OwnChanges<T> {
  /** Null until the first page (of the search) is read: a list of only what events brought would look complete. */
  items: T[] | null;
  /** Why the list could not be read, or why an event could not be applied to it. */
  error: string | null;
  /** More records are on the server than are shown. */
  hasMore: boolean;
  loadingMore: boolean;
  /** Reads the next page (once at a time; nothing when all is read). */
  more(): void;
  /**
   * Keeps the record(s) a call answers with, but not one an event came about while the call ran: the
   * answer may be older than that event, and the call's own change comes as an event too.
   */
  keepAnswer(call: () => Promise<T | T[]>): Promise<void>;
}

interface Shown<T> {
  items: T[];
  /** The next page's path; undefined until the first page is read, null once the last one is. */
  next: string | null | undefined;
  /** The last record of the pages read: a record that sorts after it belongs to a page not read yet. */
  boundary: T | null;
  search: string;
  /** Counts the searches, so a page read for an earlier one is dropped. */
  generation: number;
  loading: boolean;
}

const holds = <T extends { id: string }>(list: T[], id: string) => list.some((known) => known.id === id);
const without = <T extends { id: string }>(list: T[], id: string) => list.filter((known) => known.id !== id);

/**
 * A server's list of records, read as far as the user scrolls (or whole) and kept current by its events,
 * followed from the cursor the list was read at, so a change made between the two is not lost. What is
 * shown is always the head of the server's list (an event about a record past the pages read leaves it to
 * its page), plus what the page's own calls made. A search reads the server's `q` pages.
 */
export function useLiveList<T extends { id: string }>(source: ListSource<T>, search = ""): LiveList<T> {
  const shown = useRef<Shown<T>>({ items: [], next: undefined, boundary: null, search, generation: 0, loading: false });
  const [, redraw] = useReducer((count: number) => count + 1, 0);
  const readError = useRef<string | null>(null);
  const eventError = useRef<string | null>(null);
  // Ids removed: a page read before the deletion may still hold them.
  const deleted = useRef(new Set<string>());
  // What the page's own calls made stays shown though it may sort past the pages read.
  const own = useRef(new Set<string>());
  // How many events each record has had, to tell whether one came while a call ran.
  const eventCounts = useRef(new Map<string, number>());

  const change = (items: T[]) => {
    shown.current = { ...shown.current, items };
    redraw(0);
  };
  const fail = (failure: unknown) => {
    readError.current = failureText(failure);
    shown.current = { ...shown.current, loading: false };
    redraw(0);
  };
  const beforeBoundary = (item: T) => {
    const { next, boundary } = shown.current;
    return next === null || next === undefined || boundary === null || source.compare(item, boundary) <= 0;
  };
  const listable = (id: string) => !(source.idsNeverReused && deleted.current.has(id));
  // In place of the record with its id (a new one at the end), then in the server's order again: what the order goes by may be what changed.
  const placed = (list: T[], item: T) =>
    (holds(list, item.id) ? list.map((known) => (known.id === item.id ? item : known)) : [...list, item]).sort(source.compare);
  const counted = (id: string) => eventCounts.current.set(id, (eventCounts.current.get(id) ?? 0) + 1);

  // A record that is not shown, and would not be, leaves the list (and the page) as it is.
  const eventChanges: EventChanges<T> = {
    keep(item) {
      counted(item.id);
      if (!listable(item.id)) return;
      deleted.current.delete(item.id);
      const { items, search: searched } = shown.current;
      const belongs = (source.matches?.(item, searched) ?? true) && (beforeBoundary(item) || own.current.has(item.id));
      if (belongs) change(placed(items, item));
      else if (holds(items, item.id)) change(without(items, item.id));
    },
    forget(id) {
      counted(id);
      deleted.current.add(id);
      if (holds(shown.current.items, id)) change(without(shown.current.items, id));
    },
  };
  const ownChanges: OwnChanges<T> = {
    keep(item) {
      if (!listable(item.id)) return;
      deleted.current.delete(item.id);
      own.current.add(item.id);
      change(placed(shown.current.items, item));
    },
    add(item) {
      if (!holds(shown.current.items, item.id)) ownChanges.keep(item);
    },
    forget(id) {
      deleted.current.add(id);
      if (holds(shown.current.items, id)) change(without(shown.current.items, id));
    },
  };

  // A page in the server's order; a record the list already holds stays as it is (an event or the page's
  // own call brought it, and is newer), and one forgotten stays out.
  const takePage = (page: { items: T[]; next: string | null }, generation: number) => {
    if (generation !== shown.current.generation) return;
    const listed = new Map(shown.current.items.map((known) => [known.id, known]));
    const pageIds = new Set(page.items.map((item) => item.id));
    const fromPage = page.items.filter((item) => !deleted.current.has(item.id)).map((item) => listed.get(item.id) ?? item);
    shown.current = { ...shown.current, next: page.next, boundary: page.items.at(-1) ?? shown.current.boundary, loading: false };
    // Records shown before the page came (events) that sort past it wait for their own page.
    const items = [...shown.current.items.filter((known) => !pageIds.has(known.id)), ...fromPage].filter(
      (item) => beforeBoundary(item) || own.current.has(item.id),
    );
    readError.current = null;
    change(items.sort(source.compare));
  };

  /** Reads the first page of a search (or the whole list); resolves to the event cursor it was read at. */
  const readFirst = async (searched: string): Promise<number> => {
    const generation = shown.current.generation + 1;
    shown.current = { items: [], next: undefined, boundary: null, search: searched, generation, loading: true };
    redraw(0);
    if ("firstPage" in source) {
      const page = await readPage<T>(source.firstPage(searched));
      takePage(page, generation);
      return page.eventCursor;
    }
    const cursor = await readEventCursor();
    takePage({ items: await source.readAll(), next: null }, generation);
    return cursor;
  };

  // Every first read is tried again until the server answers (a page opened while it was down comes back
  // by itself), until the page goes or a newer search replaces it.
  const life = useRef(new AbortController());
  const searching = useRef(new AbortController());
  const readFirstRetrying = async (searched: string, alsoRead?: () => Promise<number>) => {
    searching.current.abort();
    searching.current = new AbortController();
    const signal = AbortSignal.any([life.current.signal, searching.current.signal]);
    try {
      return await readRetrying(() => Promise.all([readFirst(searched), alsoRead?.()]), signal, fail);
    } catch (failure) {
      if (!signal.aborted) fail(failure);
      throw failure;
    }
  };
  const ignore = () => {};

  // The stream follows from the cursor the list was read at (the earlier of two reads), so it misses nothing.
  useEffect(() => {
    let unsubscribe = () => {};
    readFirstRetrying(search, source.readAlso)
      .then(([listCursor, alsoCursor]) => {
        unsubscribe = subscribe({
          kinds: source.kinds,
          after: Math.min(listCursor, alsoCursor ?? listCursor),
          onEvents(events) {
            for (const event of events) source.apply(event, eventChanges);
          },
          onProblem(sentence) {
            eventError.current = sentence;
            redraw(0);
          },
        });
      })
      .catch(ignore);
    return () => {
      life.current.abort();
      unsubscribe();
    };
  }, []);

  // A new search starts from its first page; the stream goes on as it is. The first search is the one
  // the effect above has read (it runs first, and records the search it reads in `shown`).
  useEffect(() => {
    if (search === shown.current.search) return;
    readFirstRetrying(search).catch(ignore);
  }, [search]);

  const keepAnswer = async (call: () => Promise<T | T[]>) => {
    const before = new Map(eventCounts.current);
    const answer = await call();
    for (const item of Array.isArray(answer) ? answer : [answer]) {
      if (eventCounts.current.get(item.id) === before.get(item.id)) ownChanges.keep(item);
    }
  };

  const { items, next, loading } = shown.current;
  return {
    items: next === undefined ? null : items,
    error: readError.current ?? eventError.current,
    hasMore: typeof next === "string",
    loadingMore: loading && next !== undefined,
    more() {
      const { next: path, loading: busy, generation } = shown.current;
      if (typeof path !== "string" || busy) return;
      shown.current = { ...shown.current, loading: true };
      redraw(0);
      readPage<T>(path)
        .then((page) => takePage(page, generation))
        .catch(fail);
    },
    ...ownChanges,
    keepAnswer,
  };
}
