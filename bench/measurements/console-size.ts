import { statSync } from "node:fs";
import type { Page } from "playwright-core";
import { runTurns, scratchSession, timedGet } from "../lib/atrium.ts";
import { PHONE } from "../lib/browser.ts";
import { consoleWorld, sessionRoute, untilQuiet, visit, type ConsoleWorld } from "../lib/console.ts";
import { measurement } from "../lib/measurement.ts";
import { below } from "../lib/report.ts";

/** After the reply is shown, the page has loaded all it will once no response came for this long (at most 10 s). */
const QUIET_MS = 1_500;
/** The files that load later: scripts, styles and WebAssembly. */
const LAZY_KIND = /\.(?:m?js|css|wasm)$/;
/** Echoed back as markdown by the echo agent: two fenced blocks (src/acp-echo/echo-agent.ts). */
const CODE_PROMPT =
  "Two blocks of code:\n\n```ts\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n```\n\n```py\ndef add(a: int, b: int) -> int:\n    return a + b\n```";

/** The file at `path` as the server serves it (uncompressed), with its size gzipped at Bun's default level. */
async function served(base: string, path: string) {
  const { body } = await timedGet(base, {}, path);
  return { path, bytes: body.byteLength, gzipBytes: Bun.gzipSync(body).byteLength };
}

const text = async (base: string, path: string) => new TextDecoder().decode((await timedGet(base, {}, path)).body);

/** Same-origin paths outside the interface that `html` names in src and href attributes. */
function referencedPaths(html: string, base: string): string[] {
  const urls = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => new URL(match[1]!, base)).filter((url) => url.origin === new URL(base).origin);
  return [...new Set(urls.map((url) => url.pathname))].filter((path) => !path.startsWith("/v1/"));
}

/**
 * Opens a session's page in a fresh phone context once its echo reply (with code) is stored, waits for
 * the reply to be shown and the network to go quiet, and returns every same-origin path it received outside
 * the interface, and what the running page links to (its manifest and icons are added by its script).
 */
async function visitSession(world: ConsoleWorld): Promise<{ received: string[]; linked: string[] }> {
  const { atrium } = world;
  const sessionId = await scratchSession(atrium, "echo", undefined, "Sizes");
  await runTurns(atrium, sessionId, [CODE_PROMPT], 10_000);
  const origin = new URL(atrium.url).origin;
  const received = new Set<string>();
  let lastResponseAt = performance.now();
  const watch = (page: Page) =>
    page.on("response", (response) => {
      lastResponseAt = performance.now();
      const url = new URL(response.url());
      if (url.origin === origin && !url.pathname.startsWith("/v1/")) received.add(url.pathname);
    });
  return visit(world, sessionRoute(sessionId), { watch }, async (page) => {
    await page.locator(".message.assistant .code-block").first().waitFor({ timeout: 15_000 });
    await untilQuiet(() => lastResponseAt, QUIET_MS, 10_000);
    const linked = await page.evaluate<string[]>("Array.from(document.querySelectorAll('link[href], script[src]'), (e) => e.href || e.src)");
    return {
      received: [...received],
      linked: linked
        .map((href) => new URL(href))
        .filter((url) => url.origin === origin)
        .map((url) => url.pathname),
    };
  });
}

type Served = Awaited<ReturnType<typeof served>>;
const sum = (files: Served[], pick: (file: Served) => number) => files.reduce((total, file) => total + pick(file), 0) / 1024;

export const consoleSize = measurement({
  key: "console-size",
  title: "Console: the initial script and the console's share of the binary",
  seed: {
    what: "the compiled binary (offline by its config) serving the console; Debian's headless Chromium.",
    run: (bench) => consoleWorld(bench, { config: {}, harness: "echo" }, async () => ({ binary: bench.binary })),
  },
  action: {
    what:
      "the scripts and styles the page at / names, fetched and gzipped with Bun.gzipSync (default level); then a session page " +
      `opened in a fresh ${PHONE.width}×${PHONE.height} context for an echo reply with two fenced blocks (ts, py), until the reply is ` +
      `shown and no response came for ${QUIET_MS} ms: the .js, .css and .wasm files / does not name load ` +
      "later; all the console's files: the page, what it names, what its script links to, the manifest and its icons, /sw.js and what loads later, raw.",
    async run(world) {
      const { atrium } = world;
      const base = atrium.url;
      const page = await served(base, "/");
      const initialPaths = referencedPaths(await text(base, "/"), base);
      const initial = await Promise.all(initialPaths.map((path) => served(base, path)));
      const known = new Set(["/", ...initialPaths, "/sw.js"]);
      // That a reply without code loads nothing later is the suite's to check (test/console/replies.browser.ts).
      const withCode = await visitSession(world);
      const laterWithCode = await Promise.all(withCode.received.filter((path) => !known.has(path) && LAZY_KIND.test(path)).map((path) => served(base, path)));
      const manifestPath = withCode.linked.find((path) => path.endsWith(".webmanifest")) ?? "/manifest.webmanifest";
      const manifest = await served(base, manifestPath);
      const icons = ((JSON.parse(await text(base, manifestPath)) as { icons?: { src: string }[] }).icons ?? []).map((icon) => new URL(icon.src, base).pathname);
      const counted = new Set([...known, ...laterWithCode.map((file) => file.path), manifestPath]);
      const rest = [...icons, ...withCode.linked, ...withCode.received].filter((path) => !counted.has(path));
      const extra = await Promise.all(["/sw.js", ...new Set(rest)].map((path) => served(base, path)));
      return {
        scripts: initial.filter((file) => /\.m?js$/.test(file.path)),
        styles: initial.filter((file) => file.path.endsWith(".css")),
        page,
        laterWithCode,
        all: [page, ...initial, ...laterWithCode, manifest, ...extra],
      };
    },
  },
  baseline: {
    what: "none: the budgets are absolute (the initial scripts within 150 KB gzipped, all the console's files under 4 MB); the binary's size for reference.",
  },
  rounds: { warmup: 0, measured: 1 },
  figures: ({ action: [sizes] }, world) => [
    { label: "initial scripts, gzipped", value: sum(sizes!.scripts, (f) => f.gzipBytes), unit: "KiB", target: below(150_000 / 1024) },
    { label: "initial scripts, raw", value: sum(sizes!.scripts, (f) => f.bytes), unit: "KiB" },
    { label: "initial styles, gzipped", value: sum(sizes!.styles, (f) => f.gzipBytes), unit: "KiB" },
    { label: "the page itself (/), gzipped", value: sum([sizes!.page], (f) => f.gzipBytes), unit: "KiB" },
    { label: "scripts and styles loaded later on a reply with code", value: sizes!.laterWithCode.length, unit: "count" },
    { label: "loaded later, gzipped", value: sum(sizes!.laterWithCode, (f) => f.gzipBytes), unit: "KiB" },
    { label: "all the console's files, raw", value: sum(sizes!.all, (f) => f.bytes), unit: "KiB", target: below(4_000_000 / 1024) },
    { label: "the console's files", value: sizes!.all.length, unit: "count" },
    { label: "the binary (for reference)", value: statSync(world.binary).size / 2 ** 20, unit: "MiB" },
  ],
});
