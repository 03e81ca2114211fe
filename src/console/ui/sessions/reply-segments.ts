import type { TranscriptDetailsPage } from "../../../schemas/transcript.ts";

export type DetailEntry = TranscriptDetailsPage["entries"][number];

/** A reply as it happened: a run of its text, or a thought or tool call that came at that point. */
export type ReplySegment = { type: "text"; key: string; text: string } | { type: "entry"; key: string; entry: DetailEntry };

/**
 * Cuts a reply's text where each of its thoughts and tool calls came (`textOffset`), in the details'
 * order. An entry kept before offsets were recorded goes after the text, as does one whose offset the
 * text has not reached yet (its text is on its way).
 */
export function replySegments(text: string, entries: readonly DetailEntry[]): ReplySegment[] {
  const segments: ReplySegment[] = [];
  const placed = entries.map((entry) => ({ entry, at: Math.min(entry.payload.textOffset ?? text.length, text.length) }));
  // The order the agent sent them in, kept where offsets tie; an offset never goes back.
  let cut = 0;
  for (const { entry, at } of placed) {
    const offset = Math.max(at, cut);
    if (offset > cut) segments.push({ type: "text", key: `text:${cut}`, text: text.slice(cut, offset) });
    segments.push({ type: "entry", key: entry.key, entry });
    cut = offset;
  }
  if (cut < text.length || segments.length === 0) segments.push({ type: "text", key: `text:${cut}`, text: text.slice(cut) });
  return segments;
}
