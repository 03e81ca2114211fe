import type { ConversationItem } from "../../../schemas/sessions.ts";
import { ReplyBody } from "./reply-body.tsx";
import { StreamedText } from "./streamed-text.tsx";

/** How a reply ended, when that is worth saying (a normal end says nothing). */
const STOP_NOTES: Record<string, string> = {
  cancelled: "Cancelled",
  error: "Ended in error",
  interrupted: "Interrupted by a server restart",
  max_tokens: "Stopped at the token limit",
  refusal: "The agent refused",
};

/** The replies read with the page, before they are drawn: where a session opens. */
export const NEWEST_READ_AT_ONCE = 3;

function Message(props: { sessionId: string; item: ConversationItem; detailChanges: number; newest: boolean }) {
  const { sessionId, item, detailChanges } = props;
  const stopNote = item.stopReason ? STOP_NOTES[item.stopReason] : undefined;
  return (
    <li class={`message ${item.role}`} data-item={item.id} data-generating={item.isGenerating ? "true" : undefined}>
      {item.role === "assistant" ? (
        <ReplyBody sessionId={sessionId} item={item} changes={detailChanges} newest={props.newest} />
      ) : (
        <StreamedText text={item.text} />
      )}
      {item.attachments.length > 0 && (
        <ul class="attachments">
          {item.attachments.map((attachment) => (
            <li key={attachment.fileId}>📎 {attachment.name}</li>
          ))}
        </ul>
      )}
      {item.isGenerating && <p class="quiet generating">Writing…</p>}
      {stopNote && <p class="quiet">{stopNote}</p>}
    </li>
  );
}

/** The conversation, oldest first; earlier items are read on demand. */
export function Conversation(props: {
  sessionId: string;
  items: ConversationItem[];
  detailChanges: ReadonlyMap<string, number>;
  hasEarlier: boolean;
  loadEarlier: () => void;
}) {
  return (
    <div class="conversation">
      {props.hasEarlier && (
        <button type="button" class="quiet-button" onClick={props.loadEarlier}>
          Earlier messages
        </button>
      )}
      <ol class="messages" aria-label="Conversation">
        {props.items.map((item, index) => (
          <Message
            key={item.id}
            sessionId={props.sessionId}
            item={item}
            detailChanges={props.detailChanges.get(item.id) ?? 0}
            newest={index >= props.items.length - NEWEST_READ_AT_ONCE * 2}
          />
        ))}
      </ol>
    </div>
  );
}
