import { describe, expect, test } from "bun:test";
import { SseFrameReader } from "../../src/console/ui/shared/sse-frames.ts";

// The console's framing of the event stream: what the server writes (src/events/event-stream-hub.ts),
// arriving in chunks cut anywhere.
const STREAM =
  'retry: 2000\n: connected\n\nid: 7\nevent: sync.changed\ndata: {"a":1}\n\n: heartbeat\n\nid: 8\nevent: project.created\ndata: {"b":\ndata: 2}\n\n';

describe("the event stream's frames", () => {
  test("comments and retry make no frame; id, event and every data line do", () => {
    expect(new SseFrameReader().push(STREAM)).toEqual([
      { id: "7", event: "sync.changed", data: '{"a":1}' },
      { id: "8", event: "project.created", data: '{"b":\n2}' },
    ]);
  });

  test("cut at every length, the stream gives the same frames, each once a blank line ends it", () => {
    const whole = new SseFrameReader().push(STREAM);
    for (let size = 1; size <= STREAM.length; size++) {
      const reader = new SseFrameReader();
      const frames = [];
      for (let start = 0; start < STREAM.length; start += size) frames.push(...reader.push(STREAM.slice(start, start + size)));
      expect(frames).toEqual(whole);
    }
  });

  test("CRLF and lone CR end lines too, even when a chunk ends between CR and LF", () => {
    const crlf = STREAM.replaceAll("\n", "\r\n");
    const reader = new SseFrameReader();
    const frames = [...reader.push(crlf.slice(0, crlf.indexOf("\r\n\r\n", 40) + 1)), ...reader.push(crlf.slice(crlf.indexOf("\r\n\r\n", 40) + 1))];
    expect(frames).toEqual(new SseFrameReader().push(STREAM));
    // A CR that ends a chunk may be half of a CRLF: the frame it ends comes with the next chunk.
    const lone = new SseFrameReader();
    expect(lone.push("id: 1\rdata: x\r\r")).toEqual([]);
    expect(lone.push("data: y\r\r")).toEqual([{ id: "1", data: "x" }]);
  });

  test("one space after the colon is the separator; a second one is the value's", () => {
    expect(new SseFrameReader().push("data:x\n\ndata:  y\n\n")).toEqual([{ data: "x" }, { data: " y" }]);
  });

  test("a frame not yet ended waits", () => {
    const reader = new SseFrameReader();
    expect(reader.push("id: 3\ndata: {}\n")).toEqual([]);
    expect(reader.push("\n")).toEqual([{ id: "3", data: "{}" }]);
  });
});
