import { expect, test } from "bun:test";
import { connect } from "node:net";
import { startTestServer } from "../helpers/test-server.ts";

test("a request that never finishes holds a graceful stop only for the grace period", async () => {
  const t = await startTestServer({ tuning: { shutdownGraceMs: 300 } });
  const socket = connect(t.server.port, "127.0.0.1");
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  // Half a body, then nothing: the request stays in flight.
  socket.write(
    `PUT /v1/sync/x HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"entries":`,
  );
  await Bun.sleep(100);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const started = performance.now();
  await t.stop();
  const took = performance.now() - started;
  expect(took).toBeGreaterThanOrEqual(250);
  expect(took).toBeLessThan(3000);
  await closed;
});
