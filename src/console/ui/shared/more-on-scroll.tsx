import { useEffect, useRef } from "preact/hooks";

/** How far below the screen the end of a list may be when its next page is read: about a phone screen. */
const READ_AHEAD = "0px 0px 900px 0px";

interface MoreOnScrollProps {
  hasMore: boolean;
  loadingMore: boolean;
  /** Counted rows: after each page the end is watched anew, so a page that leaves it on screen reads the next. */
  shownCount: number;
  more(): void;
  /** What the button says, e.g. "Show more sessions". */
  label: string;
}

/**
 * The end of a paged list: the next page is read when it comes near the screen as the user scrolls, and
 * a button does the same for those who tab or whose browser watches nothing.
 */
export function MoreOnScroll({ hasMore, loadingMore, shownCount, more, label }: MoreOnScrollProps) {
  const end = useRef<HTMLDivElement>(null);
  const latestMore = useRef(more);
  latestMore.current = more;

  useEffect(() => {
    const element = end.current;
    if (!element || !hasMore || loadingMore || typeof IntersectionObserver === "undefined") return;
    // Observing reports at once whether the end is near, so a short page goes on to the next.
    const watcher = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) latestMore.current();
      },
      { rootMargin: READ_AHEAD },
    );
    watcher.observe(element);
    return () => watcher.disconnect();
  }, [hasMore, loadingMore, shownCount]);

  if (!hasMore) return null;
  return (
    <div class="list-end" ref={end}>
      {loadingMore ? (
        <p class="quiet" role="status">
          Loading…
        </p>
      ) : (
        <button type="button" class="quiet-button" onClick={more}>
          {label}
        </button>
      )}
    </div>
  );
}
