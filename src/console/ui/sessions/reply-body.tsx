import { useMemo, useRef } from "preact/hooks";
import type { ConversationItem } from "../../../schemas/sessions.ts";
import { MarkdownText } from "./markdown-text.tsx";
import { type ReplySegment, replySegments } from "./reply-segments.ts";
import { ToolCard } from "./tool-card.tsx";
import { useReplyDetails } from "./use-reply-details.ts";

function Segment({ sessionId, segment }: { sessionId: string; segment: ReplySegment }) {
  if (segment.type === "text") return <MarkdownText text={segment.text} />;
  const { payload } = segment.entry;
  if (payload.type === "tool_call") return <ToolCard sessionId={sessionId} call={payload} />;
  return (
    <details class="thought-card">
      <summary>
        <span class="tool-icon" role="img" aria-label="Thought">
          ∴
        </span>
        Thought
      </summary>
      <MarkdownText text={payload.text} />
    </details>
  );
}

/**
 * An agent's reply in the order it happened: its text, cut where each thought and tool call came, with
 * the call as a card in its place. Until the details are read (near the screen), the text alone.
 */
export function ReplyBody(props: { sessionId: string; item: ConversationItem; changes: number; newest: boolean }) {
  const { sessionId, item, changes } = props;
  const box = useRef<HTMLDivElement>(null);
  const details = useReplyDetails(sessionId, item.id, changes, box, props.newest);
  const segments = useMemo(() => replySegments(item.text, details.entries ?? []), [item.text, details.entries]);
  return (
    <div class="reply-body" ref={box} data-details={details.entries === null ? "unread" : "read"}>
      {segments.map((segment) => (
        <Segment key={segment.key} sessionId={sessionId} segment={segment} />
      ))}
      {details.error && <p class="error">Its tool calls could not be read: {details.error}</p>}
    </div>
  );
}
