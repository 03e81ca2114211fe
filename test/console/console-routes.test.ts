import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync } from "node:zlib";
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

  test("scripts and styles go compressed as the browser asks (brotli, else gzip), each encoding with its own ETag; small files and images as they are", async () => {
    const html = await (await fetch(`${t.url}/`, { headers: { "accept-encoding": "br, gzip" } })).text();
    const script = referencedFiles(html).find((file) => file.endsWith(".js"))!;
    const fetchAs = (acceptEncoding: string, etag?: string) =>
      fetch(t.url + script, { headers: { "accept-encoding": acceptEncoding, ...(etag ? { "if-none-match": etag } : {}) }, decompress: false } as RequestInit);
    const plain = await fetchAs("identity");
    const bytes = new Uint8Array(await plain.arrayBuffer());
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("accept-encoding");
    const br = await fetchAs("gzip, deflate, br, zstd");
    expect(br.headers.get("content-encoding")).toBe("br");
    const brotli = new Uint8Array(await br.arrayBuffer());
    expect(brotli.length).toBeLessThan(bytes.length / 2);
    expect(new Uint8Array(brotliDecompressSync(brotli))).toEqual(bytes);
    const gz = await fetchAs("gzip");
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(new Uint8Array(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toEqual(bytes);
    const etags = [plain, br, gz].map((response) => response.headers.get("etag"));
    expect(new Set(etags).size).toBe(3);
    expect((await fetchAs("br", br.headers.get("etag")!)).status).toBe(304);
    // The plain copy's ETag does not stand for the brotli one.
    expect((await fetchAs("br", plain.headers.get("etag")!)).status).toBe(200);
    for (const small of ["/", "/icon-192.png"]) {
      expect(
        (await fetch(t.url + small, { headers: { "accept-encoding": "br" }, decompress: false } as RequestInit)).headers.get("content-encoding"),
      ).toBeNull();
    }
  });

  test("the installed app's files: the manifest and its icons, and the service worker as a classic script, at fixed names", async () => {
    const manifestAnswer = await fetch(`${t.url}/manifest.webmanifest`);
    expect(manifestAnswer.headers.get("content-type")).toBe("application/manifest+json");
    const manifest = (await manifestAnswer.json()) as { start_url: string; display: string; icons: Array<{ src: string; sizes: string; type: string }> };
    expect(manifest).toMatchObject({ start_url: "/", display: "standalone" });
    for (const icon of manifest.icons) {
      const image = await fetch(`${t.url}${icon.src}`);
      expect(image.headers.get("content-type")).toBe("image/png");
      const bytes = new Uint8Array(await image.arrayBuffer());
      // PNG's width and height, big-endian at bytes 16 and 20: what the manifest says.
      const view = new DataView(bytes.buffer);
      expect(`${view.getUint32(16)}x${view.getUint32(20)}`).toBe(icon.sizes);
    }
    const worker = await fetch(`${t.url}/sw.js`);
    expect(worker.headers.get("content-type")).toContain("text/javascript");
    const script = await worker.text();
    expect(script).toContain('addEventListener("fetch"');
    expect(script).not.toMatch(/^\s*(export|import)\b/m);
    expect(script).not.toContain("interface ");
    // The page's policy lets it name its manifest and run its worker, and nothing more.
    expect(CONSOLE_CSP).toContain("manifest-src 'self'");
    expect(CONSOLE_CSP).toContain("worker-src 'self'");
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
