import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readdirSync, readFileSync } from "node:fs";
import { FileLogger, redact } from "../../src/logging/logger.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer } from "../helpers/test-server.ts";
import { until } from "../helpers/poll.ts";

describe("logging", () => {
  test("redact scrubs tokens in text and secret-named fields", () => {
    const token = `atr_${"A".repeat(43)}`;
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
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
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

test("rotation keeps five earlier files, so a burst of lines cannot erase the start-up ones at once", () => {
  const dir = makeTempDir();
  const file = join(dir.path, "logs", "atrium.log");
  const logger = new FileLogger({ file, level: "info", echoToStderr: false, maxBytes: 64 * 1024 });
  // Each rotation is checked after 64 KiB of lines: 12 rotations' worth, more than are kept.
  for (let i = 0; i < 12 * 700; i++) logger.info("filler", { i, pad: "x".repeat(80) });
  const files = readdirSync(join(dir.path, "logs")).sort();
  expect(files).toEqual(["atrium.log", "atrium.log.1", "atrium.log.2", "atrium.log.3", "atrium.log.4", "atrium.log.5"]);
  // The newest rotated file follows the current one: .1 ends where atrium.log begins.
  const firstOf = (name: string) => (JSON.parse(readFileSync(join(dir.path, "logs", name), "utf8").split("\n")[0]!) as { i: number }).i;
  expect(firstOf("atrium.log.5")).toBeLessThan(firstOf("atrium.log.4"));
  expect(firstOf("atrium.log.1")).toBeLessThan(firstOf("atrium.log"));
  dir.remove();
});

test("the debug request log records the status each response was sent with", async () => {
  const t = await startTestServer({ logLevel: "debug" });
  const sent: Array<[string, string, number]> = [];
  const record = async (method: string, path: string, response: Promise<Response>) => sent.push([method, path, (await response).status]);
  await record("GET", "/v1/nothing", t.api("/v1/nothing"));
  await record("GET", "/v1/projects/prj_none", t.api("/v1/projects/prj_none"));
  await record("GET", "/v1/info", fetch(`${t.url}/v1/info`));
  await record("PUT", "/v1/sync/x", t.api("/v1/sync/x", { method: "PUT", headers: { "content-type": "application/json" }, body: "{" }));
  await record("POST", "/v1/projects", t.api("/v1/projects", { method: "POST", headers: { "content-type": "application/json" }, body: '{"isScratch":true}' }));
  await record("GET", "/v1/events/stream", t.api("/v1/events/stream?after=999999"));
  expect(sent.map(([, , status]) => status)).toEqual([404, 404, 401, 400, 201, 409]);
  const logged = await until(
    async () =>
      readFileSync(t.server.paths.logFile, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { msg: string; method: string; path: string; status: number })
        .filter((line) => line.msg === "request")
        .map((line): [string, string, number] => [line.method, line.path, line.status]),
    (lines) => lines.length >= sent.length,
  );
  expect(logged).toEqual(sent);
  await t.stop();
});

test("a log that cannot be written does not throw", () => {
  const dir = makeTempDir();
  const logger = new FileLogger({ file: join(dir.path, "logs", "atrium.log"), level: "info", echoToStderr: false, maxBytes: 1024 });
  dir.remove();
  expect(() => logger.info("into a removed folder")).not.toThrow();
});
