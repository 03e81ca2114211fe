import { useEffect, useRef, useState } from "preact/hooks";
import { api, failureText } from "./api.ts";
import { followEvents, type StreamedEvent } from "./event-stream.ts";

/** How a live list changes: by its events, and by the answers to the page's own calls. */
export interface LiveListChanges<T> {
  /** Puts the record in, in place of the one with its id: what an event brought. */
  keep(item: T): void;
  /** Puts the record in only if it is not there: an event about it may have come before the answer, and is newer. */
  add(item: T): void;
  forget(id: string): void;
}

/** Where a live list comes from; made once, at module level or in a first render (the hook reads it once). */
export interface LiveListSource<T> {
  /** The kinds to follow, as the stream's `kind=` filter, e.g. `machine.*`. */
  kinds: string;
  /** Reads the whole list, handing it over a page at a time so the first can be shown at once. */
  read(onPage: (items: T[]) => void): Promise<void>;
  /** Applies one event through the changes. */
  apply(event: StreamedEvent, changes: LiveListChanges<T>): void;
  /** The list in the server's order (a new record is put in at the end first). */
  order(list: T[]): T[];
  /** Set where an id is never used again: a late event about a forgotten record then does not list it again. */
  idsNeverReused?: boolean;
}

export interface LiveList<T> extends LiveListChanges<T> {
  /** Null until the first page is read: a list of only what events brought would look complete. */
  items: T[] | null;
  error: string | null;
  /**
   * Keeps the record(s) a call answers with, but not one an event came about while the call ran: the
   * answer may be older than that event, and the call's own change comes as an event too.
   */
  keepAnswer(call: () => Promise<T | T[]>): Promise<void>;
}

/**
 * Follows the kinds from the event cursor, then reads: the cursor is taken before the read, so a change
 * made while the read runs comes as an event. Returns the function that stops following.
 */
export function followThenRead(
  kinds: string,
  onEvent: (event: StreamedEvent) => void,
  read: () => Promise<void>,
  onFailure: (sentence: string) => void,
): () => void {
  let stopEvents = () => {};
  let stopped = false;
  const load = async () => {
    const { cursor } = await api<{ cursor: number }>("GET", "/v1/events/cursor");
    if (stopped) return;
    stopEvents = followEvents(`kind=${kinds}&after=${cursor}`, onEvent);
    await read();
  };
  load().catch((failure: unknown) => onFailure(failureText(failure)));
  return () => {
    stopped = true;
    stopEvents();
  };
}

/**
 * A server's list of records with ids, followed live: the events are followed from a cursor read before
 * the list, so a change made between the two is not lost, and a record an event brought is kept as the
 * event left it when the (older) list arrives.
 */
export function useLiveList<T extends { id: string }>(source: LiveListSource<T>): LiveList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [firstPageRead, setFirstPageRead] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A list read before a deletion may still hold the record its event has already removed.
  const deleted = useRef(new Set<string>());
  // How many events each record has had, to tell whether one came while a call ran.
  const eventCounts = useRef(new Map<string, number>());

  const listable = (id: string) => !(source.idsNeverReused && deleted.current.has(id));
  const changes: LiveListChanges<T> = {
    keep(item) {
      if (!listable(item.id)) return;
      deleted.current.delete(item.id);
      // Ordered again: what the order goes by (a name) may be what changed.
      setItems((list) =>
        source.order(list.some((known) => known.id === item.id) ? list.map((known) => (known.id === item.id ? item : known)) : [...list, item]),
      );
    },
    add(item) {
      if (!listable(item.id)) return;
      deleted.current.delete(item.id);
      setItems((list) => (list.some((known) => known.id === item.id) ? list : source.order([...list, item])));
    },
    forget(id) {
      deleted.current.add(id);
      setItems((list) => list.filter((known) => known.id !== id));
    },
  };

  const counted = (id: string) => eventCounts.current.set(id, (eventCounts.current.get(id) ?? 0) + 1);
  const eventChanges: LiveListChanges<T> = {
    keep(item) {
      counted(item.id);
      changes.keep(item);
    },
    add(item) {
      counted(item.id);
      changes.add(item);
    },
    forget(id) {
      counted(id);
      changes.forget(id);
    },
  };

  const keepAnswer = async (call: () => Promise<T | T[]>) => {
    const before = new Map(eventCounts.current);
    const answer = await call();
    for (const item of Array.isArray(answer) ? answer : [answer]) {
      if (eventCounts.current.get(item.id) === before.get(item.id)) changes.keep(item);
    }
  };

  // A page in the server's order; a record the list already holds stays as it is (an event brought it,
  // or the page's own call), and one forgotten stays out.
  const withPage = (list: T[], page: T[]) => {
    const listed = new Map(list.map((known) => [known.id, known]));
    const pageIds = new Set(page.map((item) => item.id));
    const fromPage = page.filter((item) => !deleted.current.has(item.id)).map((item) => listed.get(item.id) ?? item);
    return source.order([...list.filter((known) => !pageIds.has(known.id)), ...fromPage]);
  };

  useEffect(
    () =>
      followThenRead(
        source.kinds,
        (event) => source.apply(event, eventChanges),
        () =>
          source.read((page) => {
            setItems((list) => withPage(list, page));
            setFirstPageRead(true);
          }),
        setError,
      ),
    [],
  );

  return { items: firstPageRead ? items : null, error, ...changes, keepAnswer };
}
