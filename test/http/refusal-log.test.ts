import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FileLogger } from "../../src/logging/logger.ts";
import { RefusalLog } from "../../src/http/refusal-log.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer } from "../helpers/test-server.ts";
import { ManualClock } from "../helpers/manual-clock.ts";

interface LogLine {
  msg: string;
  address?: string;
  count?: number;
  status?: number;
}

const linesOf = (file: string): LogLine[] =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as LogLine);
const refusalLines = (file: string) => linesOf(file).filter((line) => line.msg.startsWith("refused"));

describe("refused requests are logged at a bounded rate", () => {
  test("5,000 requests with a wrong token write one line naming the address", async () => {
    const t = await startTestServer({ logLevel: "info" });
    try {
      for (let sent = 0; sent < 5_000; sent += 50) {
        const batch = Array.from({ length: 50 }, () => fetch(`${t.url}/v1/info`, { headers: { authorization: "Bearer atr_wrong" } }));
        for (const response of await Promise.all(batch)) expect(response.status).toBe(401);
      }
      expect(refusalLines(t.server.paths.logFile)).toEqual([
        expect.objectContaining({ msg: "refused a request without a valid token", address: "127.0.0.1", status: 401, method: "GET", path: "/v1/info" }),
      ]);
    } finally {
      await t.stop();
    }
  });

  test("later refusals are counted, one line per address and window; a quiet address is forgotten; addresses are bounded", async () => {
    const dir = makeTempDir();
    const file = join(dir.path, "atrium.log");
    const clock = new ManualClock();
    const logger = new FileLogger({ file, level: "info", echoToStderr: false, maxBytes: 1 << 20 });
    const refusals = new RefusalLog(logger, clock, { windowMs: 60_000, maxAddresses: 2 });
    const refusal = { status: 401, method: "GET", path: "/v1/info" };
    for (let i = 0; i < 1_000; i++) refusals.refused("10.0.0.1", refusal);
    refusals.refused("10.0.0.2", { ...refusal, status: 403 });
    refusals.refused("10.0.0.3", refusal); // beyond maxAddresses: counted with the others
    refusals.refused("10.0.0.4", refusal);
    expect(refusalLines(file).map((line) => [line.address, line.msg])).toEqual([
      ["10.0.0.1", "refused a request without a valid token"],
      ["10.0.0.2", "refused a request that is not allowed"],
      ["other addresses", "refused a request without a valid token"],
    ]);
    // The window ends: one line with the count of 10.0.0.1 and of the other addresses; 10.0.0.2 was quiet.
    await clock.advance(59_999);
    expect(refusalLines(file)).toHaveLength(3);
    await clock.advance(1);
    expect(
      refusalLines(file)
        .slice(3)
        .map((line) => [line.address, line.count]),
    ).toEqual([
      ["10.0.0.1", 999],
      ["other addresses", 1],
    ]);
    // A window with nothing to count writes nothing and forgets the address (no timer is left waiting):
    // its next refusal is logged at once.
    await clock.advance(60_000);
    expect(refusalLines(file)).toHaveLength(5);
    expect(clock.waiting).toBe(0);
    refusals.refused("10.0.0.1", refusal);
    expect(
      refusalLines(file)
        .slice(5)
        .map((line) => [line.address, line.msg]),
    ).toEqual([["10.0.0.1", "refused a request without a valid token"]]);
    dir.remove();
  });
});
