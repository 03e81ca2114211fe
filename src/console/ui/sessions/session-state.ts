import type { Static } from "@sinclair/typebox";
import type { EventRecord } from "../../../schemas/events.ts";
import type { ConversationItem, Session, SessionDetail, SessionEvents } from "../../../schemas/sessions.ts";

/** The payload of a session event, as its schema in src/schemas/sessions.ts says. */
type PayloadOf<K extends keyof typeof SessionEvents> = Static<(typeof SessionEvents)[K]>;

const withItem = (detail: SessionDetail, itemId: string, change: (item: ConversationItem) => ConversationItem): SessionDetail => ({
  ...detail,
  conversation: detail.conversation.map((item) => (item.id === itemId ? change(item) : item)),
});

const withoutPrompt = (detail: SessionDetail, promptId: string): SessionDetail => ({
  ...detail,
  promptQueue: detail.promptQueue.filter((prompt) => prompt.id !== promptId),
});

/**
 * A session's state after one of its events: the detail as read (`GET /v1/sessions/{id}`) moves forward
 * with each event after its `eventCursor`, so the view never reads the whole session again while open.
 * Kinds the view does not show (transcript details are read when opened) leave it as it is.
 */
export function applySessionEvent(detail: SessionDetail, event: EventRecord): SessionDetail {
  const kind = event.kind as keyof typeof SessionEvents;
  switch (kind) {
    case "session.updated": {
      const { session } = event.payload as PayloadOf<typeof kind>;
      return { ...detail, session, pendingPlanApproval: session.pendingPlanApproval };
    }
    case "session.message.created": {
      const { item } = event.payload as PayloadOf<typeof kind>;
      if (detail.conversation.some((listed) => listed.id === item.id)) return detail;
      return { ...detail, conversation: [...detail.conversation, item] };
    }
    case "session.message.delta": {
      const { itemId, text } = event.payload as PayloadOf<typeof kind>;
      return withItem(detail, itemId, (item) => ({ ...item, text: item.text + text }));
    }
    case "session.message.completed": {
      const { item, textOmitted } = event.payload as PayloadOf<typeof kind>;
      // Past 64 KiB the event leaves the text out: the deltas already brought it.
      return withItem(detail, item.id, (shown) => ({ ...item, text: textOmitted ? shown.text : item.text }));
    }
    case "session.prompt.queued": {
      const { prompt } = event.payload as PayloadOf<typeof kind>;
      if (detail.promptQueue.some((queued) => queued.id === prompt.id)) return detail;
      return { ...detail, promptQueue: [...detail.promptQueue, prompt] };
    }
    case "session.prompt.updated": {
      const { prompt } = event.payload as PayloadOf<typeof kind>;
      return { ...detail, promptQueue: detail.promptQueue.map((queued) => (queued.id === prompt.id ? prompt : queued)) };
    }
    case "session.prompt.removed":
    case "session.prompt.started":
      return withoutPrompt(detail, (event.payload as PayloadOf<typeof kind>).promptId);
    case "session.question":
      return { ...detail, pendingQuestion: (event.payload as PayloadOf<typeof kind>).question };
    case "session.plan":
      return { ...detail, sessionPlan: (event.payload as PayloadOf<typeof kind>).plan };
    case "session.usage":
      return { ...detail, session: { ...detail.session, usage: (event.payload as PayloadOf<typeof kind>).usage } };
    case "session.goal":
      return { ...detail, goal: (event.payload as PayloadOf<typeof kind>).goal };
    case "session.commands":
      return { ...detail, availableCommands: (event.payload as PayloadOf<typeof kind>).availableCommands };
    case "session.tasks":
      return { ...detail, backgroundTasks: (event.payload as PayloadOf<typeof kind>).backgroundTasks };
    case "session.config": {
      const { configOptions, configSelections } = event.payload as PayloadOf<typeof kind>;
      return { ...detail, configOptions, session: { ...detail.session, configSelections } };
    }
    default:
      return detail;
  }
}

/** Where a session stands, in the words of the session list. */
export type SessionStanding = "working" | "waiting" | "attention" | "idle" | "moved";

/** `waiting`: a question or a plan waits for the user's answer (the turn is held until then); `moved`: it goes on on another machine. */
export function standingOf(session: Pick<Session, "sidebarState" | "actionRequired" | "move">): SessionStanding {
  if (session.move?.state === "moved") return "moved";
  if (session.sidebarState === "working") return "working";
  if (session.sidebarState === "waiting") return "waiting";
  if (session.actionRequired || session.sidebarState === "error") return "attention";
  return "idle";
}

export const STANDING_LABELS: Record<SessionStanding, string> = {
  working: "Working",
  waiting: "Waiting for you",
  attention: "Needs attention",
  idle: "Idle",
  moved: "Moved",
};
