import { afterAll, beforeAll, expect, test } from "bun:test";
import { runAtrium, builtCommand } from "../helpers/cli-process.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

test("atrium console prints a link to the running server whose code, in the fragment, signs a browser in once", async () => {
  const printed = await runAtrium(builtCommand, ["console"], t.dataDir);
  expect(printed.code).toBe(0);
  const link = new URL(printed.stdout.trim());
  expect(link.origin).toBe(t.url);
  expect(link.pathname).toBe("/");
  expect(link.search).toBe("");
  const code = new URLSearchParams(link.hash.slice(1)).get("code");
  expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(printed.stderr).toContain("it signs in once");
  const exchange = () =>
    fetch(`${t.url}/v1/console/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }) });
  expect((await exchange()).status).toBe(201);
  expect((await exchange()).status).toBe(401);
});
