import type { ConversationItem } from "../../../schemas/sessions.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { ReplyBody } from "./reply-body.tsx";
import { STOP_NOTES } from "./reply-end.ts";
import { StreamedText } from "./streamed-text.tsx";
import { ForkFromHere } from "./fork-actions.tsx";

/** The replies read with the page, before they are drawn: where a session opens. */
export const NEWEST_READ_AT_ONCE = 3;

function Message(props: { sessionId: string; item: ConversationItem; detailChanges: number; newest: boolean; waiting: boolean; found: boolean }) {
  const { sessionId, item, detailChanges } = props;
  const stopNote = item.stopReason ? STOP_NOTES[item.stopReason] : undefined;
  return (
    <li class={`message ${item.role}${props.found ? " found" : ""}`} data-item={item.id} data-generating={item.isGenerating ? "true" : undefined}>
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
      {item.isGenerating && <p class="quiet generating">{props.waiting ? "Waiting for you" : "Writing…"}</p>}
      {stopNote && <p class="quiet">{stopNote}</p>}
      {item.role === "assistant" && !item.isGenerating && <ForkFromHere sessionId={sessionId} itemId={item.id} />}
    </li>
  );
}

/**
 * The button that reads the page of items before those shown; a failure is said beside it, and the same
 * button tries again. It stays enabled while busy (a disabled button loses the focus) and ignores clicks.
 */
function EarlierMessages({ load }: { load: () => Promise<void> }) {
  const { busy, error, run } = useAction();
  return (
    <div class="earlier-messages">
      <button type="button" class="quiet-button" aria-disabled={busy} onClick={() => busy || run(load)}>
        {busy ? "Reading earlier messages…" : error ? "Try again" : "Earlier messages"}
      </button>
      <Alert error={error && `Earlier messages could not be read: ${error}`} />
    </div>
  );
}

/** The conversation, oldest first; earlier items are read on demand. */
export function Conversation(props: {
  sessionId: string;
  items: ConversationItem[];
  detailChanges: ReadonlyMap<string, number>;
  hasEarlier: boolean;
  loadEarlier: () => Promise<void>;
  /** The agent waits for the user (a question, a plan): a reply held by it is not being written. */
  waiting: boolean;
  /** The message a search found, which the page opened at: marked. */
  found: string | null;
}) {
  return (
    <div class="conversation">
      {props.hasEarlier && <EarlierMessages load={props.loadEarlier} />}
      <ol class="messages" aria-label="Conversation">
        {props.items.map((item, index) => (
          <Message
            key={item.id}
            sessionId={props.sessionId}
            item={item}
            detailChanges={props.detailChanges.get(item.id) ?? 0}
            newest={index >= props.items.length - NEWEST_READ_AT_ONCE * 2}
            waiting={props.waiting}
            found={item.id === props.found}
          />
        ))}
      </ol>
    </div>
  );
}
