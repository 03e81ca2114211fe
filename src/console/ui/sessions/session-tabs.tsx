import { useEffect, useState } from "preact/hooks";
import type { SessionDetail } from "../../../schemas/sessions.ts";
import { hasUsage } from "./session-panels.tsx";

/** A session's parts: on a narrow screen one at a time behind its tab, on a wide one all at once (the conversation and the side column). */
export type SessionTab = "conversation" | "changes" | "plan" | "options" | "usage" | "goal" | "schedules" | "tasks";

const TAB_LABELS: Record<SessionTab, string> = {
  conversation: "Conversation",
  changes: "Changes",
  plan: "Plan",
  options: "Options",
  usage: "Usage",
  goal: "Goal",
  schedules: "Schedules",
  tasks: "Tasks",
};

/** The tabs a session has now: the conversation, its changes, goal and schedules always; the others once they hold something. */
export function sessionTabs(detail: SessionDetail): SessionTab[] {
  const held: Array<[SessionTab, boolean]> = [
    ["conversation", true],
    ["changes", true],
    // A plan waiting for approval is in the conversation, by the composer.
    ["plan", detail.sessionPlan !== null && !detail.pendingPlanApproval],
    ["options", detail.configOptions.length > 0],
    ["usage", hasUsage(detail.session.usage)],
    ["goal", true],
    ["schedules", true],
    ["tasks", detail.backgroundTasks.length > 0],
  ];
  return held.filter(([, shown]) => shown).map(([tab]) => tab);
}

/** sessions.css's breakpoint: from this width the side column shows every part beside the conversation. */
const SIDE_COLUMN = "(min-width: 900px)";

/** Whether the session's parts are tabs: only where the screen is too narrow for the side column, which would show them twice. */
export function useTabbed(): boolean {
  const [tabbed, setTabbed] = useState(() => !matchMedia(SIDE_COLUMN).matches);
  useEffect(() => {
    const wide = matchMedia(SIDE_COLUMN);
    const changed = () => setTabbed(!wide.matches);
    wide.addEventListener("change", changed);
    return () => wide.removeEventListener("change", changed);
  }, []);
  return tabbed;
}

/**
 * The attributes of a part's box (and `classes` of its own): where the parts are tabs (`current` is the
 * chosen one) a tab's panel, hidden unless chosen; where they are not (`current` null) a plain box.
 */
export const tabPanel = (tab: SessionTab, current: SessionTab | null, classes = "") =>
  current === null
    ? { class: classes || undefined }
    : {
        id: `session-panel-${tab}`,
        role: "tabpanel" as const,
        "aria-labelledby": `session-tab-${tab}`,
        class: `${classes} tab-panel${tab === current ? "" : " off-tab"}`.trim(),
      };

/** The row of tabs a phone shows above the session. */
export function SessionTabs({ tabs, current, choose }: { tabs: SessionTab[]; current: SessionTab; choose: (tab: SessionTab) => void }) {
  return (
    <div class="session-tabs" role="tablist" aria-label="Session parts">
      {tabs.map((tab) => (
        <button
          key={tab}
          type="button"
          role="tab"
          id={`session-tab-${tab}`}
          aria-controls={`session-panel-${tab}`}
          aria-selected={tab === current}
          onClick={() => choose(tab)}
        >
          {TAB_LABELS[tab]}
        </button>
      ))}
    </div>
  );
}
