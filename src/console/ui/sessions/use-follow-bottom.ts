import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";

/** Near enough to the bottom that new text should keep the page scrolled to it. */
const FOLLOW_MARGIN_PX = 80;
/** Room left above a sent prompt held at the top of the screen. */
const ABOVE_PROMPT_PX = 8;
const heightOf = (selector: string) => [...document.querySelectorAll(selector)].reduce((sum, element) => sum + element.getBoundingClientRect().height, 0);
/** What the page's sticky bars cover at the top of the screen. */
const coveredAbove = () => heightOf(".page-top, .session-sticky");
/** The height the sticky parts leave for the conversation: the bars above it and the composer below. */
const roomOnScreen = () => innerHeight - coveredAbove() - heightOf(".composer");
const pageEnd = () => document.documentElement.scrollHeight - innerHeight;
const atBottom = () => scrollY >= pageEnd() - FOLLOW_MARGIN_PX;
const userMessages = () => document.querySelectorAll(".messages > .message.user");

export interface FollowBottom {
  /** The page shows the newest text; false once the reader scrolled up, or a reply outgrew the screen below a sent prompt. */
  atLatest: boolean;
  /** Follows to the very end (the reader's "Jump to latest"). */
  jumpToLatest(): void;
  /**
   * Follows the reply to the prompt just sent, but never so far that the prompt leaves the top of the
   * screen: the reader sees what they asked and the start of the answer, and reads on by scrolling.
   */
  followSent(): void;
  /**
   * Brings something the reader must see (a question) into view: from its start where it is taller than
   * the room above the composer, which stops the following; else by following to the end, where it is.
   */
  reveal(element: Element): void;
  /** Stops following and shows the element from its start (a message a search found). */
  holdAt(element: Element): void;
}

/**
 * Keeps a session's conversation at its bottom while the reader is there and it is shown (`active`):
 * after each change (`changes`), and whenever the page grows on its own (a reply's markdown drawn after it
 * mounts, tool cards read after their text, code coloured). Only the reader's scroll stops it; scrolling
 * back down to the end starts it again. The page growing, and this hook's own scrolls, never stop it (a
 * scroll handler that asked "at the bottom?" after growth would stop following on the first long page).
 */
export function useFollowBottom(changes: unknown, active: boolean): FollowBottom {
  const following = useRef(true);
  /** How many prompts the conversation held when one was sent: the next is the one held in view. */
  const sentAfter = useRef<number | null>(null);
  /** Where this hook's own last scroll went: its scroll event is not the reader's. */
  const ownScroll = useRef<number | null>(null);
  const [atLatest, setAtLatest] = useState(true);
  const live = useRef(active);
  live.current = active;

  /** Where following scrolls to: the end, or where the sent prompt reaches the top. */
  const target = () => {
    const sent = sentAfter.current === null ? undefined : userMessages()[sentAfter.current];
    if (!sent) return pageEnd();
    return Math.min(pageEnd(), sent.getBoundingClientRect().top + scrollY - coveredAbove() - ABOVE_PROMPT_PX);
  };
  const follow = () => {
    const to = target();
    if (Math.abs(scrollY - to) > 1) {
      ownScroll.current = to;
      scrollTo(0, to);
    }
    setAtLatest(to >= pageEnd() - 1);
  };
  const stopOrFollow = (now: boolean) => {
    following.current = now;
    if (now) sentAfter.current = null;
    setAtLatest(now);
  };

  useLayoutEffect(() => {
    if (active && following.current) follow();
  }, [changes, active]);
  useEffect(() => {
    const grows = new ResizeObserver(() => live.current && following.current && follow());
    grows.observe(document.body);
    // The reader's scrolls: to the end follows again (past a sent prompt too); up, away from where
    // following holds the page, stops it at once, before a card read above the screen grows the page;
    // down past a sent prompt's hold too (the reader reads on at their pace). The browser keeping the
    // view in place as content above it grows scrolls down with the hold: that never stops it.
    let lastY = scrollY;
    const scrolled = () => {
      const own = ownScroll.current !== null && Math.abs(scrollY - ownScroll.current) <= 1;
      const movedUp = scrollY < lastY;
      ownScroll.current = null;
      lastY = scrollY;
      if (own || !live.current) return;
      if (atBottom()) {
        if (!following.current || sentAfter.current !== null) stopOrFollow(true);
        return;
      }
      if (!following.current) return;
      const away = movedUp ? target() - scrollY : scrollY - target();
      if (away > FOLLOW_MARGIN_PX && (movedUp || sentAfter.current !== null)) stopOrFollow(false);
    };
    addEventListener("scroll", scrolled, { passive: true });
    return () => {
      grows.disconnect();
      removeEventListener("scroll", scrolled);
    };
  }, []);

  const jumpToLatest = () => {
    stopOrFollow(true);
    follow();
  };
  const holdAt = (element: Element) => {
    stopOrFollow(false);
    scrollTo(0, element.getBoundingClientRect().top + scrollY - coveredAbove());
  };
  return {
    atLatest,
    jumpToLatest,
    followSent() {
      following.current = true;
      sentAfter.current = userMessages().length;
      follow();
    },
    reveal(element) {
      if (element.getBoundingClientRect().height <= roomOnScreen()) jumpToLatest();
      else holdAt(element);
    },
    holdAt,
  };
}
