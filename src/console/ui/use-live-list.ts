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

/** Where a live list comes from; define it once at module level (the hook reads it once). */
export interface LiveListSource<T> {
  /** The kinds to follow, as the stream's `kind=` filter, e.g. `machine.*`. */
  kinds: string;
  /** Reads the whole list, handing it over a page at a time so the first can be shown at once. */
  read(onPage: (items: T[]) => void): Promise<void>;
  /** Applies one event through the changes. */
  apply(event: StreamedEvent, changes: LiveListChanges<T>): void;
  /** The list in the server's order (a new record is put in at the end first). */
  order(list: T[]): T[];
}

export interface LiveList<T> extends LiveListChanges<T> {
  items: T[] | null;
  error: string | null;
}

/**
 * A server's list of records with ids, followed live: the events are followed from a cursor read before
 * the list, so a change made between the two is not lost, and a record an event brought is kept as the
 * event left it when the (older) list arrives.
 */
export function useLiveList<T extends { id: string }>(source: LiveListSource<T>): LiveList<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A list read before a deletion may still hold the record its event has already removed.
  const deleted = useRef(new Set<string>());

  const changes: LiveListChanges<T> = {
    keep(item) {
      deleted.current.delete(item.id);
      setItems((current) => {
        const list = current ?? [];
        const listed = list.some((known) => known.id === item.id);
        return listed ? list.map((known) => (known.id === item.id ? item : known)) : source.order([...list, item]);
      });
    },
    add(item) {
      deleted.current.delete(item.id);
      setItems((current) => (current?.some((known) => known.id === item.id) ? current : source.order([...(current ?? []), item])));
    },
    forget(id) {
      deleted.current.add(id);
      setItems((current) => current?.filter((known) => known.id !== id) ?? current);
    },
  };

  useEffect(() => {
    let stopEvents = () => {};
    let stopped = false;
    const load = async () => {
      const { cursor } = await api<{ cursor: number }>("GET", "/v1/events/cursor");
      if (stopped) return;
      stopEvents = followEvents(`kind=${source.kinds}&after=${cursor}`, (event) => source.apply(event, changes));
      await source.read((page) => {
        const fresh = (list: T[]) => page.filter((item) => !deleted.current.has(item.id) && !list.some((known) => known.id === item.id));
        setItems((current) => source.order([...(current ?? []), ...fresh(current ?? [])]));
      });
    };
    load().catch((failure) => setError(failureText(failure)));
    return () => {
      stopped = true;
      stopEvents();
    };
  }, []);

  return { items, error, ...changes };
}
