import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { loadConfigFile } from "../../src/config/config.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { runAtrium, builtCommand, startServe } from "../helpers/cli-process.ts";

let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => dir.remove());

describe("config.json", () => {
  test("a missing file is an empty config; a valid one is read", () => {
    const file = join(dir.path, "config.json");
    expect(loadConfigFile(file)).toEqual({});
    writeFileSync(file, JSON.stringify({ host: "127.0.0.2", port: 7500, logLevel: "debug" }));
    expect(loadConfigFile(file)).toEqual({ host: "127.0.0.2", port: 7500, logLevel: "debug" });
  });

  test("broken JSON or a wrong field is an error naming the file and the field", () => {
    const file = join(dir.path, "config.json");
    writeFileSync(file, "{ port: ");
    expect(() => loadConfigFile(file)).toThrow(`${file} is not valid JSON`);
    writeFileSync(file, JSON.stringify({ port: "seven" }));
    expect(() => loadConfigFile(file)).toThrow("/port");
    writeFileSync(file, JSON.stringify({ logLevel: "loud" }));
    expect(() => loadConfigFile(file)).toThrow("/logLevel");
  });

  test("serve takes its address from config.json, and a broken one stops it with a clear message", async () => {
    const file = join(dir.path, "config.json");
    writeFileSync(file, JSON.stringify({ host: "127.0.0.1", port: 0 }));
    // No flags: port 0 from the config means a free port, not the default 7433.
    const serve = await startServe(builtCommand, dir.path, []);
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(serve.url).not.toEndWith(":7433");
    serve.child.kill("SIGTERM");
    expect(await serve.child.exited).toBe(0);
    writeFileSync(file, "{");
    const result = await runAtrium(builtCommand, ["serve"], dir.path);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is not valid JSON");
  });
});
