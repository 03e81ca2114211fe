import { statSync } from "node:fs";
import type { Page } from "playwright-core";
import { apiCaller, type ApiCall } from "../lib/api.ts";
import { OFFLINE_CONFIG, startAtrium, type RunningAtrium } from "../lib/atrium.ts";
import { launchBenchBrowser, PHONE, type BenchBrowser } from "../lib/browser.ts";
import { awaitHarnessReady, type HarnessReadiness } from "../lib/harness-ready.ts";
import type { Figure, MeasurementResult } from "../lib/report.ts";

/** The budget (docs/performance.md, issue 28): the initial script within 150 KB gzipped (KB: 1,000 bytes). */
const TARGET_INITIAL_SCRIPT_BYTES = 150_000;
/** The requirement: all the console's files in the binary under 4 MB (MB: 1,000,000 bytes). */
const TARGET_CONSOLE_BYTES = 4_000_000;
const KIB = 1024;
const MIB = 1024 * 1024;
const HARNESS_READY_MS = 15_000;
const TURN_TIMEOUT_MS = 10_000;
const SHOWN_TIMEOUT_MS = 15_000;
/** After the reply is shown, the page is taken to have loaded all it will once no response came for this long. */
const QUIET_MS = 1_500;
/** However busy the page stays, it is looked at no longer than this after the reply is shown. */
const QUIET_LIMIT_MS = 10_000;
/** The files that load later: scripts, styles and WebAssembly. */
const LAZY_KIND = /\.(?:m?js|css|wasm)$/;
/** Echoed back as markdown by the echo agent: two fenced blocks (src/acp-echo/echo-agent.ts). */
const CODE_PROMPT = [
  "Two blocks of code:",
  "",
  "```ts",
  "export function add(a: number, b: number): number {",
  "  return a + b;",
  "}",
  "```",
  "",
  "```py",
  "def add(a: int, b: int) -> int:",
  "    return a + b",
  "```",
].join("\n");
const PLAIN_PROMPT = "A reply with no code at all, only words.";

interface ServedFile {
  path: string;
  kind: "page" | "script" | "style" | "other";
  /** Where it was found: the page's own HTML, the page once running, the manifest, the service worker, loaded later. */
  source: "page" | "initial" | "running page" | "manifest" | "service worker" | "later";
  bytes: number;
  gzipBytes: number;
}

const kindOf = (path: string): ServedFile["kind"] => (path === "/" ? "page" : /\.m?js$/.test(path) ? "script" : /\.css$/.test(path) ? "style" : "other");

/** The file at `path` as the server serves it (uncompressed), with its size gzipped at Bun's default level. */
async function servedFile(base: string, path: string, source: ServedFile["source"]): Promise<ServedFile & { body: Uint8Array }> {
  const response = await fetch(base + path);
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  const body = new Uint8Array(await response.arrayBuffer());
  return { path, kind: kindOf(path), source, bytes: body.byteLength, gzipBytes: Bun.gzipSync(body).byteLength, body };
}

/** Same-origin paths outside the interface that `html` names in src and href attributes. */
function referencedPaths(html: string, base: string): string[] {
  const origin = new URL(base).origin;
  const paths = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => new URL(match[1]!, base)).filter((url) => url.origin === origin);
  return [...new Set(paths.map((url) => url.pathname))].filter((path) => !path.startsWith("/v1/"));
}

interface LinkWindow {
  document: { querySelectorAll(selector: string): ArrayLike<{ href?: string; src?: string }> };
}

/** What the running page links to (the manifest and touch icon are added by its script). */
function linkedUrls(): string[] {
  return Array.from((globalThis as unknown as LinkWindow).document.querySelectorAll("link[href], script[src]"), (element) => element.href || element.src || "");
}

interface CodeWindow {
  document: { querySelector(selector: string): unknown };
}

function replyShown(withCode: boolean): boolean {
  const { document } = globalThis as unknown as CodeWindow;
  return document.querySelector(withCode ? ".message.assistant .code-block" : ".message.assistant .message-text") !== null;
}

/** Resolves once no response came for `QUIET_MS` (or `QUIET_LIMIT_MS` passed). */
async function quietNetwork(lastResponseAt: () => number): Promise<void> {
  const deadline = performance.now() + QUIET_LIMIT_MS;
  while (performance.now() < deadline && performance.now() - lastResponseAt() < QUIET_MS) await Bun.sleep(100);
}

interface PageVisit {
  /** Every same-origin path the page received, outside the interface. */
  received: string[];
  /** What the running page links to. */
  linked: string[];
}

/**
 * Opens a session's page (in a fresh phone context: nothing cached) once its reply is stored, waits for
 * the reply to be shown and the page to go quiet, and returns what it received.
 */
async function visitSession(
  browser: BenchBrowser,
  atrium: RunningAtrium,
  call: ApiCall,
  projectId: string,
  prompt: string,
  withCode: boolean,
): Promise<PageVisit> {
  const session = await call<{ id: string }>(201, "POST", "/v1/sessions", { projectId, harnessId: "echo", title: withCode ? "Code" : "No code" });
  await call(201, "POST", `/v1/sessions/${session.id}/prompts`, { text: prompt });
  const deadline = performance.now() + TURN_TIMEOUT_MS;
  for (;;) {
    const detail = await call<{ conversation: { role: string; text: string; isGenerating: boolean }[] }>(200, "GET", `/v1/sessions/${session.id}?limit=5`);
    const reply = detail.conversation.findLast((item) => item.role === "assistant");
    if (reply && !reply.isGenerating && reply.text === `Echo: ${prompt}`) break;
    if (performance.now() > deadline) throw new Error(`the echo agent's reply was not stored within ${TURN_TIMEOUT_MS} ms: ${JSON.stringify(reply)}`);
    await Bun.sleep(50);
  }
  const origin = new URL(atrium.server.url).origin;
  const context = await browser.signedInContext(atrium.token, PHONE);
  try {
    const page: Page = await context.newPage();
    const received = new Set<string>();
    let lastResponseAt = performance.now();
    page.on("response", (response) => {
      lastResponseAt = performance.now();
      const url = new URL(response.url());
      if (url.origin === origin && !url.pathname.startsWith("/v1/")) received.add(url.pathname);
    });
    await page.goto(`${atrium.server.url}/#/sessions/${encodeURIComponent(session.id)}`);
    await page.waitForFunction(replyShown, withCode, { timeout: SHOWN_TIMEOUT_MS });
    await quietNetwork(() => lastResponseAt);
    const linked = (await page.evaluate(linkedUrls)).map((href) => new URL(href)).filter((url) => url.origin === origin);
    return { received: [...received], linked: linked.map((url) => url.pathname) };
  } finally {
    await context.close();
    await call(200, "DELETE", `/v1/sessions/${session.id}`);
  }
}

const sum = (files: ServedFile[], pick: (file: ServedFile) => number) => files.reduce((total, file) => total + pick(file), 0);

/**
 * The console's weight: the scripts and styles the page at `/` names, gzipped as they would travel;
 * what a session page with code loads later (the highlighter, when it loads lazily); and every file of
 * the console the binary serves, raw, with the binary's own size for reference.
 */
export async function measureConsoleSize(binary: string): Promise<MeasurementResult> {
  const atrium = await startAtrium(binary, {}, OFFLINE_CONFIG);
  let browser: BenchBrowser | undefined;
  try {
    const base = atrium.server.url;
    const call = apiCaller(base, atrium.token);
    await awaitHarnessReady(() => call<HarnessReadiness[]>(200, "GET", "/v1/harnesses"), "echo", HARNESS_READY_MS);
    const page = await servedFile(base, "/", "page");
    const initialPaths = referencedPaths(new TextDecoder().decode(page.body), base);
    const initial = await Promise.all(initialPaths.map((path) => servedFile(base, path, "initial")));
    const scripts = initial.filter((file) => file.kind === "script");
    const styles = initial.filter((file) => file.kind === "style");
    if (scripts.length === 0) throw new Error("the page at / names no script");

    const project = await call<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true, name: "Sizes" });
    browser = await launchBenchBrowser();
    const known = new Set(["/", ...initialPaths, "/sw.js"]);
    const later = (visit: PageVisit) => visit.received.filter((path) => !known.has(path) && LAZY_KIND.test(path));
    // First a reply without code: nothing should load later there.
    const plain = await visitSession(browser, atrium, call, project.id, PLAIN_PROMPT, false);
    const withCode = await visitSession(browser, atrium, call, project.id, CODE_PROMPT, true);
    const laterPaths = [...new Set([...later(plain), ...later(withCode)])];
    const lazy = await Promise.all(laterPaths.map((path) => servedFile(base, path, "later")));

    // Every file of the console: the page, what it names, what its script links to, the manifest's
    // icons, the service worker, and anything else outside the interface the pages received.
    const manifestPath = [...plain.linked, ...withCode.linked].find((path) => path.endsWith(".webmanifest")) ?? "/manifest.webmanifest";
    const manifest = await servedFile(base, manifestPath, "manifest");
    const icons = ((JSON.parse(new TextDecoder().decode(manifest.body)) as { icons?: { src: string }[] }).icons ?? []).map(
      (icon) => new URL(icon.src, base).pathname,
    );
    const counted = new Set([...known, ...laterPaths, manifestPath]);
    const extra: (ServedFile & { body: Uint8Array })[] = [manifest, await servedFile(base, "/sw.js", "service worker")];
    for (const [paths, source] of [
      [icons, "manifest"],
      [[...plain.linked, ...withCode.linked, ...plain.received, ...withCode.received], "running page"],
    ] as const) {
      for (const path of paths) {
        if (counted.has(path)) continue;
        counted.add(path);
        extra.push(await servedFile(base, path, source));
      }
    }
    const all: ServedFile[] = [page, ...initial, ...lazy, ...extra].map(({ body: _body, ...file }) => file);
    const consoleBytes = sum(all, (file) => file.bytes);
    const kib = (bytes: number) => bytes / KIB;
    const scriptGzip = sum(scripts, (file) => file.gzipBytes);
    const styleGzip = sum(styles, (file) => file.gzipBytes);
    const figures: Figure[] = [
      { label: "initial scripts, gzipped", value: kib(scriptGzip), unit: "KiB", target: { comparison: "<", value: kib(TARGET_INITIAL_SCRIPT_BYTES) } },
      { label: "initial scripts, raw", value: kib(sum(scripts, (file) => file.bytes)), unit: "KiB" },
      { label: "initial styles, gzipped", value: kib(styleGzip), unit: "KiB" },
      { label: "initial styles, raw", value: kib(sum(styles, (file) => file.bytes)), unit: "KiB" },
      { label: "initial scripts and styles, gzipped", value: kib(scriptGzip + styleGzip), unit: "KiB" },
      { label: "the page itself (/), gzipped", value: kib(page.gzipBytes), unit: "KiB" },
      { label: "scripts and styles loaded later on a reply with code", value: later(withCode).length, unit: "items" },
      { label: "the same on a reply without code (should be none)", value: later(plain).length, unit: "items" },
      { label: "loaded later, gzipped", value: kib(sum(lazy, (file) => file.gzipBytes)), unit: "KiB" },
      { label: "loaded later, raw", value: kib(sum(lazy, (file) => file.bytes)), unit: "KiB" },
      { label: "all the console's files, raw", value: kib(consoleBytes), unit: "KiB", target: { comparison: "<", value: kib(TARGET_CONSOLE_BYTES) } },
      { label: "the console's files", value: all.length, unit: "items" },
      { label: "the binary (for reference)", value: statSync(binary).size / MIB, unit: "MiB" },
    ];
    return {
      method:
        `The compiled binary serves the console: the scripts and styles the page at / names are fetched and gzipped with Bun.gzipSync ` +
        `(default level); then Debian's headless Chromium opens, in fresh ${PHONE.width}×${PHONE.height} contexts, an echo session whose ` +
        `reply has no code and one whose reply has two fenced blocks (ts, py), waits for the reply (its code block) and for the network ` +
        `to be quiet for ${QUIET_MS} ms, and records every same-origin response: the .js, .css and .wasm files / does not name are ` +
        `what loads later; all the console's files: the page, what it names, what its script links to, the manifest and its icons, ` +
        `/sw.js and what loads later, raw; targets: ${TARGET_INITIAL_SCRIPT_BYTES / 1000} KB (${kib(TARGET_INITIAL_SCRIPT_BYTES).toFixed(1)} KiB) ` +
        `gzipped for the initial scripts, ${TARGET_CONSOLE_BYTES / 1e6} MB (${kib(TARGET_CONSOLE_BYTES).toFixed(1)} KiB) for all; one round.`,
      figures,
      details: { files: all, laterWithCode: later(withCode), laterWithoutCode: later(plain), binaryBytes: statSync(binary).size },
    };
  } finally {
    await browser?.close();
    await atrium.stop();
  }
}
