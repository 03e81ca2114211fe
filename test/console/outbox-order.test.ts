import { describe, expect, test } from "bun:test";
import { nextToSend, type OutboxEntry, retryDelayMs } from "../../src/console/ui/composer/outbox-order.ts";

const entry = (seq: number, refused: string | null = null): OutboxEntry => ({
  seq,
  clientId: `client-${seq}`,
  sessionId: "ses_1",
  text: `prompt ${seq}`,
  attachments: [],
  mentions: [],
  sentAt: "2026-01-01T00:00:00.000Z",
  refused,
});

describe("the offline outbox's order", () => {
  test("the oldest prompt goes first, whatever order the store gives them in; a refused one is passed over", () => {
    expect(nextToSend([entry(3), entry(1), entry(2)])?.seq).toBe(1);
    expect(nextToSend([entry(2), entry(1, "the session is gone")])?.seq).toBe(2);
    expect(nextToSend([entry(1, "refused")])).toBeUndefined();
    expect(nextToSend([])).toBeUndefined();
  });

  test("sending them one after the other, each taken off once sent, sends each once in order", () => {
    let waiting = [entry(5), entry(2), entry(9), entry(4, "refused"), entry(7)];
    const sent: number[] = [];
    for (let next = nextToSend(waiting); next; next = nextToSend(waiting)) {
      sent.push(next.seq);
      waiting = waiting.filter((kept) => kept !== next);
    }
    expect(sent).toEqual([2, 5, 7, 9]);
  });

  test("tries that cannot reach the server wait 1 s, then twice as long each time, at most 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map(retryDelayMs)).toEqual([1000, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});
