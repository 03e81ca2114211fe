import { useEffect, useReducer, useRef } from "preact/hooks";
import { failureText, readPage } from "./api.ts";
import { followEvents, type StreamedEvent } from "./event-stream.ts";
import type { LiveListChanges } from "./use-live-list.ts";

/** How a paged list changes: a record kept in place of the one with its id, or forgotten. */
type PagedListChanges<T> = Pick<LiveListChanges<T>, "keep" | "forget">;

/** Where a paged list comes from; made once (the hook reads it once). */
export interface PagedListSource<T> {
  /** The kinds to follow, as the stream's `kind=` filter. */
  kinds: string;
  /** The path of the first page for a search (`""`: the whole list). */
  firstPage(search: string): string;
  /** Applies one event through the changes; an event of another kind may change what the page keeps beside the list. */
  apply(event: StreamedEvent, changes: PagedListChanges<T>): void;
  /** The server's order. */
  compare(a: T, b: T): number;
  /** Whether a record belongs in the list searched for, as the server's `q` decides. */
  matches(item: T, search: string): boolean;
  /** Read with the first page (what else the page shows beside the list); resolves to the event cursor it was read at. */
  readAlso?(): Promise<number>;
}

export interface PagedList<T> extends PagedListChanges<T> {
  /** Null until the first page of the search is read. */
  items: T[] | null;
  error: string | null;
  /** More records are on the server than are shown. */
  hasMore: boolean;
  loadingMore: boolean;
  /** Reads the next page (once at a time; nothing when all is read). */
  more(): void;
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

/**
 * A server list read a page at a time, as far as the user scrolls, and kept current by its events: what
 * is shown is always the head of the server's list (an event about a record past the pages read leaves it
 * to its page), plus what the page's own calls made. A search reads the server's `q` pages.
 */
export function usePagedList<T extends { id: string }>(source: PagedListSource<T>, search: string): PagedList<T> {
  const shown = useRef<Shown<T>>({ items: [], next: undefined, boundary: null, search, generation: 0, loading: false });
  const [, redraw] = useReducer((count: number) => count + 1, 0);
  const errorRef = useRef<string | null>(null);
  // Ids removed by events: a page read before the deletion may still hold them.
  const deleted = useRef(new Set<string>());
  // What the page's own calls made stays shown though it may sort past the pages read.
  const own = useRef(new Set<string>());

  const change = (items: T[]) => {
    shown.current = { ...shown.current, items };
    redraw(0);
  };
  const fail = (failure: unknown) => {
    errorRef.current = failureText(failure);
    shown.current = { ...shown.current, loading: false };
    redraw(0);
  };
  const beforeBoundary = (item: T) => {
    const { next, boundary } = shown.current;
    return next === null || next === undefined || boundary === null || source.compare(item, boundary) <= 0;
  };
  const placed = (list: T[], item: T) => [...list.filter((known) => known.id !== item.id), item].sort(source.compare);
  const without = (list: T[], id: string) => list.filter((known) => known.id !== id);
  const holds = (list: T[], id: string) => list.some((known) => known.id === id);

  // A record that is not shown, and would not be, leaves the list (and the page) as it is.
  const eventChanges: PagedListChanges<T> = {
    keep(item) {
      deleted.current.delete(item.id);
      const { items, search: searched } = shown.current;
      const belongs = source.matches(item, searched) && (beforeBoundary(item) || own.current.has(item.id));
      if (belongs) change(placed(items, item));
      else if (holds(items, item.id)) change(without(items, item.id));
    },
    forget(id) {
      deleted.current.add(id);
      const { items } = shown.current;
      if (holds(items, id)) change(without(items, id));
    },
  };
  const ownChanges: PagedListChanges<T> = {
    keep(item) {
      own.current.add(item.id);
      change(placed(shown.current.items, item));
    },
    forget: eventChanges.forget,
  };

  /**
   * Puts a page in: a record already shown stays as it is (an event or a call brought it, and is newer).
   * Resolves to the event cursor the page was read at.
   */
  const takePage = async (path: string): Promise<number> => {
    const { generation } = shown.current;
    const page = await readPage<T>(path);
    if (generation !== shown.current.generation) return page.eventCursor;
    const listed = new Set(shown.current.items.map((item) => item.id));
    const fresh = page.items.filter((item) => !listed.has(item.id) && !deleted.current.has(item.id));
    const boundary = page.items.at(-1) ?? shown.current.boundary;
    shown.current = { ...shown.current, next: page.next, boundary, loading: false };
    // Records shown before the first page came (events) that sort past it wait for their own page.
    const items = [...shown.current.items, ...fresh].filter((item) => beforeBoundary(item) || own.current.has(item.id));
    errorRef.current = null;
    change(items.sort(source.compare));
    return page.eventCursor;
  };

  const readFirst = (searched: string) => {
    shown.current = { items: [], next: undefined, boundary: null, search: searched, generation: shown.current.generation + 1, loading: true };
    redraw(0);
    return takePage(source.firstPage(searched));
  };

  // The first page says the event cursor it was read at: the stream follows from there (from the
  // earlier of two reads), so it starts without a round trip for the cursor and misses nothing.
  useEffect(() => {
    let stopEvents = () => {};
    let stopped = false;
    Promise.all([readFirst(search), source.readAlso?.()])
      .then(([listCursor, alsoCursor]) => {
        if (stopped) return;
        const cursor = Math.min(listCursor, alsoCursor ?? listCursor);
        stopEvents = followEvents(`kind=${source.kinds}&after=${cursor}`, (event) => source.apply(event, eventChanges));
      })
      .catch(fail);
    return () => {
      stopped = true;
      stopEvents();
    };
  }, []);

  // A new search starts from its first page; the stream goes on as it is. The first search is the one
  // the effect above has read (it runs first, and records the search it reads in `shown`).
  useEffect(() => {
    if (search === shown.current.search) return;
    readFirst(search).catch(fail);
  }, [search]);

  const { items, next, loading } = shown.current;
  return {
    items: next === undefined ? null : items,
    error: errorRef.current,
    hasMore: typeof next === "string",
    loadingMore: loading && next !== undefined,
    more() {
      const { next: path, loading: busy } = shown.current;
      if (typeof path !== "string" || busy) return;
      shown.current = { ...shown.current, loading: true };
      redraw(0);
      takePage(path).catch(fail);
    },
    ...ownChanges,
  };
}
