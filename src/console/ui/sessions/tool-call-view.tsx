import type { ToolCallDetails } from "../../../schemas/transcript.ts";
import { DiffView } from "../shared/diff-view.tsx";

const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

/**
 * What a tool call does, as plainly as its content allows: the diff it writes (drawn line by line),
 * the files it touches, and its raw input and output only where it has
 * no richer content.
 */
export function ToolCallView({ call }: { call: ToolCallDetails }) {
  const diffs = call.content.flatMap((content) => (content.type === "diff" ? [content] : []));
  const texts = call.content.flatMap((content) =>
    content.type === "content" && (content.content as { type?: string }).type === "text" ? [(content.content as { text: string }).text] : [],
  );
  return (
    <div class="tool-call-view">
      <div>
        <strong>{call.title || call.kind || "Tool call"}</strong> {call.status && <span class="quiet">{call.status}</span>}
      </div>
      {/* A diff names its file already. */}
      {diffs.length === 0 && call.locations.length > 0 && <p class="quiet">{call.locations.map((location) => location.path).join(", ")}</p>}
      {diffs.map((diff) => (
        <DiffView key={diff.path} path={diff.path} oldText={diff.oldText ?? null} newText={diff.newText} />
      ))}
      {texts.map((text) => (
        <pre key={text}>{text}</pre>
      ))}
      {diffs.length === 0 && texts.length === 0 && call.rawInput != null && <pre>{asText(call.rawInput)}</pre>}
      {diffs.length === 0 && texts.length === 0 && call.rawOutput != null && <pre>{asText(call.rawOutput)}</pre>}
    </div>
  );
}
