import { startAtrium } from "../lib/atrium.ts";
import { pinning } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { EventStreamReader } from "./session-common.ts";

/** `/long N` of the built-in echo agent streams "chunk 0 chunk 1 …": 950,000 chunks are 11.5 MB. */
const CHUNKS = 950_000;
const CLIENTS = 3;
const TIMEOUT_MS = 180_000;
const MiB = 1024 * 1024;

/**
 * Issue 13: a reply over ~4 MB used to drop every live SSE client (its completed event carried the
 * whole text, over the 4 MiB backlog a client may have). The compiled server streams an 11.5 MB reply
 * of the built-in echo agent to three SSE clients that read as they can; counted: clients that
 * kept their stream, the text each joined from its deltas, and the largest event.
 */
export async function measureBigReply(binary: string): Promise<MeasurementResult> {
  const atrium = await startAtrium(binary);
  const headers = { authorization: `Bearer ${atrium.token}`, "content-type": "application/json" };
  const base = atrium.server.url;
  const readers: EventStreamReader[] = [];
  try {
    const project = (await (await fetch(`${base}/v1/projects`, { method: "POST", headers, body: JSON.stringify({ isScratch: true }) })).json()) as {
      id: string;
    };
    const session = (await (
      await fetch(`${base}/v1/sessions`, { method: "POST", headers, body: JSON.stringify({ projectId: project.id, harnessId: "echo" }) })
    ).json()) as { id: string };
    for (let index = 0; index < CLIENTS; index++) readers.push(await EventStreamReader.open(`${base}/v1/events/stream?sessionId=${session.id}`, atrium.token));
    const started = performance.now();
    await fetch(`${base}/v1/sessions/${session.id}/prompts`, { method: "POST", headers, body: JSON.stringify({ text: `/long ${CHUNKS}` }) });
    const expectedLength = Array.from({ length: CHUNKS }, (_, index) => `chunk ${index} `.length).reduce((a, b) => a + b, 0);
    const completed = (reader: EventStreamReader) =>
      reader.events.some((event) => event.kind === "session.message.completed" && (event.payload.item as { role: string }).role === "assistant");
    await Promise.all(readers.map((reader) => reader.until(() => completed(reader), TIMEOUT_MS, "the completed reply").catch(() => undefined)));
    const seconds = (performance.now() - started) / 1000;
    const joinedLengths = readers.map((reader) =>
      reader.events.filter((event) => event.kind === "session.message.delta").reduce((sum, event) => sum + (event.payload.text as string).length, 0),
    );
    const whole = joinedLengths.filter((length) => length === expectedLength).length;
    const kept = readers.filter((reader) => reader.problems.length === 0 && completed(reader)).length;
    const largest = Math.max(...readers.flatMap((reader) => reader.events.map((event) => JSON.stringify(event).length)));
    return {
      method: `the built-in echo agent's /long ${CHUNKS.toLocaleString("en-US")} (${(expectedLength / MiB).toFixed(1)} MiB) to ${CLIENTS} SSE clients on the session; ${pinning}.`,
      figures: [
        { label: "clients that kept their stream to the end", value: kept, unit: "clients", target: { comparison: ">=", value: CLIENTS } },
        { label: "clients whose deltas joined are the whole reply", value: whole, unit: "clients", target: { comparison: ">=", value: CLIENTS } },
        { label: "largest event", value: largest / 1024, unit: "KiB", target: { comparison: "<", value: 1024 } },
        { label: "reply streamed and delivered in", value: seconds, unit: "s" },
      ],
      details: { chunks: CHUNKS, replyBytes: expectedLength, joinedLengths, seconds },
    };
  } finally {
    for (const reader of readers) reader.close();
    await atrium.stop();
  }
}
