import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { FileLogger, redact } from "../../src/logging/logger.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer } from "../helpers/test-server.ts";

describe("logging", () => {
  test("redact scrubs tokens in text and secret-named fields", () => {
    const token = "atr_" + "A".repeat(43);
    expect(redact(`Bearer ${token}`)).toBe("Bearer atr_[redacted]");
    expect(redact({ authorization: "Bearer x", nested: { apiKey: "k", count: 3 }, list: [token] })).toEqual({
      authorization: "[redacted]",
      nested: { apiKey: "[redacted]", count: 3 },
      list: ["atr_[redacted]"],
    });
  });

  test("lines are JSON with time, level and message, filtered by level", () => {
    const dir = makeTempDir();
    const file = join(dir.path, "logs", "atrium.log");
    const logger = new FileLogger({ file, level: "info", echoToStderr: false, maxBytes: 1024 * 1024 });
    logger.debug("hidden");
    logger.info("shown", { n: 1 });
    const lines = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "info", msg: "shown", n: 1 });
    expect(Date.parse(lines[0].time)).not.toBeNaN();
    dir.remove();
  });

  test("tokens never reach the server log, even from failing requests", async () => {
    const t = await startTestServer({ logLevel: "debug" });
    await fetch(`${t.url}/v1/info?access_token=${t.token}`);
    await fetch(`${t.url}/v1/info`, { headers: { authorization: `Bearer ${t.token}x` } });
    await t.api("/v1/info");
    await t.api("/v1/sync/x", { method: "PUT", headers: { "content-type": "application/json" }, body: `{"token": "${t.token}"` });
    const log = readFileSync(t.server.paths.logFile, "utf8");
    expect(log).toContain("refused a request without a valid token");
    expect(log).toContain('"path":"/v1/info","status":200');
    expect(log).not.toContain(t.token);
    await t.stop();
  });
});

test("a log that cannot be written does not throw", () => {
  const dir = makeTempDir();
  const logger = new FileLogger({ file: join(dir.path, "logs", "atrium.log"), level: "info", echoToStderr: false, maxBytes: 1024 });
  dir.remove();
  expect(() => logger.info("into a removed folder")).not.toThrow();
});
