/** One Server-Sent Events frame: its `id:`, `event:` and joined `data:` lines (comments and `retry:` are dropped). */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

/** A field line's value: what follows the colon, less one leading space (the SSE specification's rule). */
const fieldValue = (line: string, field: string) => {
  const value = line.slice(field.length + 1);
  return value.startsWith(" ") ? value.slice(1) : value;
};

function frameOf(block: string): SseFrame | null {
  const frame: SseFrame = { data: "" };
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("data:")) data.push(fieldValue(line, "data"));
    else if (line.startsWith("id:")) frame.id = fieldValue(line, "id");
    else if (line.startsWith("event:")) frame.event = fieldValue(line, "event");
  }
  // A block of comments only (the preamble, a heartbeat) is no frame.
  if (data.length === 0) return null;
  frame.data = data.join("\n");
  return frame;
}

/**
 * Cuts a stream's text into frames as it arrives: a chunk may end anywhere, even inside a line, and what
 * is not yet a whole frame waits for the next chunk. Lines may end in CRLF, LF or CR.
 */
export class SseFrameReader {
  private buffer = "";

  push(chunk: string): SseFrame[] {
    this.buffer += chunk;
    // A CR at the very end may be the first half of a CRLF: it waits for the next chunk.
    const complete = this.buffer.endsWith("\r") ? this.buffer.length - 1 : this.buffer.length;
    const text = this.buffer.slice(0, complete).replace(/\r\n?/g, "\n");
    const end = text.lastIndexOf("\n\n");
    if (end === -1) return [];
    this.buffer = text.slice(end + 2) + this.buffer.slice(complete);
    const frames: SseFrame[] = [];
    for (const block of text.slice(0, end).split("\n\n")) {
      const frame = frameOf(block);
      if (frame) frames.push(frame);
    }
    return frames;
  }
}
