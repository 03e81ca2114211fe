import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { FollowBottom } from "./use-follow-bottom.ts";
import type { SessionTab } from "./session-tabs.tsx";
import { useShownBetweenBars } from "./use-shown-between-bars.ts";

export interface QuestionInReach {
  /** Goes around the question's card. */
  box: { current: HTMLDivElement | null };
  /** The reader cannot see the question (another tab, scrolled away): the page pins a bar to it. */
  barShown: boolean;
  /** The bar's one tap: the conversation shown, the question in view, its first (safest) choice focused. */
  reach(): void;
}

/**
 * Keeps the agent's question within the reader's reach: one that comes while the reader follows the
 * conversation is brought into view at once; otherwise the page shows a bar that reaches it in one tap.
 */
export function useQuestionInReach(questionId: string | null, tab: SessionTab, showConversation: () => void, follow: FollowBottom): QuestionInReach {
  const box = useRef<HTMLDivElement>(null);
  const [reaching, setReaching] = useState(false);
  const shown = useShownBetweenBars(box, `${questionId}:${tab}`);
  useLayoutEffect(() => {
    if (questionId && tab === "conversation" && follow.atLatest && box.current) follow.reveal(box.current);
  }, [questionId]);
  useLayoutEffect(() => {
    if (!reaching || tab !== "conversation") return;
    setReaching(false);
    if (!box.current) return;
    follow.reveal(box.current);
    box.current.querySelector<HTMLElement>("button, input")?.focus({ preventScroll: true });
  }, [reaching, tab]);
  return {
    box,
    barShown: questionId !== null && !(tab === "conversation" && shown),
    reach() {
      showConversation();
      setReaching(true);
    },
  };
}
