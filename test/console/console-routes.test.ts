import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CONSOLE_CSP } from "../../src/http/routes/console-routes.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

/** The files the page refers to: its scripts, stylesheets and icon. */
const referencedFiles = (html: string) => [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1]!);

describe("the console's files", () => {
  test("the page is served at / without a token, under a strict CSP, with no inline script or style", async () => {
    const page = await fetch(`${t.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const html = await page.text();
    expect(html).toContain('<div id="app"></div>');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toContain("<style");
    expect(html).not.toMatch(/\son[a-z]+=/);
  });

  test("every script, stylesheet and icon the page names is served, by name, for a year", async () => {
    const files = referencedFiles(await (await fetch(`${t.url}/`)).text());
    expect(files.some((file) => file.endsWith(".js"))).toBe(true);
    expect(files.some((file) => file.endsWith(".css"))).toBe(true);
    for (const file of files) {
      const served = await fetch(t.url + file);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toMatch(file.endsWith(".js") ? /javascript/ : file.endsWith(".css") ? /text\/css/ : /image\/svg\+xml/);
      expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(served.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      const again = await fetch(t.url + file, { headers: { "if-none-match": served.headers.get("etag")! } });
      expect(again.status).toBe(304);
    }
  });

  test("an unknown file is a 404 {error}; the interface still needs its token; the OpenAPI document leaves the files out", async () => {
    const missing = await fetch(`${t.url}/chunk-nothing.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toBe("no route GET /chunk-nothing.js");
    expect((await fetch(`${t.url}/v1/no-such-route`)).status).toBe(401);
    expect((await fetch(`${t.url}/v1/info`)).status).toBe(401);
    const document = (await (await t.api("/v1/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => !path.startsWith("/v1/"))).toEqual([]);
    expect(Object.keys(document.paths)).toContain("/v1/console/sign-in");
  });
});

describe("signing in by link", () => {
  test("a link's code is exchanged once for a named token that works, and is refused after", async () => {
    const link = await t.json<{ code: string; expiresAt: string }>("POST", "/v1/console/links");
    expect(link.status).toBe(201);
    const exchange = () =>
      fetch(`${t.url}/v1/console/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: link.body.code }) });
    const signedIn = await exchange();
    expect(signedIn.status).toBe(201);
    const { name, token } = (await signedIn.json()) as { name: string; token: string };
    expect(name).toMatch(/^console-[0-9a-f]{8}$/);
    expect((await fetch(`${t.url}/v1/info`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const again = await exchange();
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: string }).error).toContain("this console link is wrong, used or expired");
  });

  test("making a link needs the token", async () => {
    expect((await fetch(`${t.url}/v1/console/links`, { method: "POST" })).status).toBe(401);
  });
});
