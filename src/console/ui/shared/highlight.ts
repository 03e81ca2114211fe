import type { StyledRun } from "./ansi-text.ts";
import type { Highlighter } from "./highlighter-api.ts";

export type { Highlighter };

/** Where the server serves the highlighter's script (src/console/console-assets.ts). */
const HIGHLIGHTER_SCRIPT = "/highlighter.js";
/** Past this, a block is left plain: highlighting it would hold the page longer than reading it plain. */
const MAX_HIGHLIGHTED = 100_000;

let loading: Promise<Highlighter> | undefined;

/** Loads the highlighter's script once, on the first code that asks for it. */
export function loadHighlighter(): Promise<Highlighter> {
  loading ??= new Promise<Highlighter>((resolve, reject) => {
    const script = document.createElement("script");
    script.type = "module";
    script.src = HIGHLIGHTER_SCRIPT;
    script.onload = () => (globalThis.atriumHighlighter ? resolve(globalThis.atriumHighlighter) : reject(new Error("the highlighter did not start")));
    script.onerror = () => reject(new Error("the highlighter could not be loaded"));
    document.head.append(script);
  }).catch((failure: unknown) => {
    // Code stays plain; the next code shown tries again.
    loading = undefined;
    throw failure;
  });
  return loading;
}

/** The highlighter if it is loaded already: what a render can use without waiting. */
export const loadedHighlighter = (): Highlighter | undefined => globalThis.atriumHighlighter;

/** Runs as spans, with plain text as text nodes. */
export function runNodes(runs: StyledRun[]): Node[] {
  return runs.map((run) => {
    if (!run.classes) return document.createTextNode(run.text);
    const span = document.createElement("span");
    span.className = run.classes;
    span.textContent = run.text;
    return span;
  });
}

/** Code waiting to be coloured, oldest first; coloured a slice of time at a time. */
const waiting: HTMLElement[] = [];
let draining = false;
/** Colouring in one go past this would hold a frame: 200 blocks arriving at once took 220 ms. */
const SLICE_MS = 8;

function colour(code: HTMLElement, highlighter: Highlighter): void {
  const language = code.dataset.language ?? "";
  const text = code.textContent ?? "";
  // Replaced meanwhile (a streaming reply's tail drawn again): nothing to colour.
  if (!code.isConnected || !highlighter.knows(language)) return;
  code.replaceChildren(...runNodes(highlighter.runs(text, language)));
  code.dataset.highlighted = "true";
}

function drain(highlighter: Highlighter): void {
  const end = performance.now() + SLICE_MS;
  let done = 0;
  while (done < waiting.length && performance.now() < end) {
    const code = waiting[done++]!;
    try {
      colour(code, highlighter);
    } catch {
      // This block stays plain; the rest are still coloured.
    }
  }
  waiting.splice(0, done);
  if (waiting.length > 0) setTimeout(() => drain(highlighter), 0);
  else draining = false;
}

/** Colours a `<code data-language>` block in place, once the highlighter is there; plain if it has no grammar for it. */
export function highlightCode(code: HTMLElement): void {
  const language = code.dataset.language ?? "";
  if (!language || code.dataset.highlighted || (code.textContent ?? "").length > MAX_HIGHLIGHTED) return;
  code.dataset.highlighted = "pending";
  waiting.push(code);
  if (draining) return;
  draining = true;
  // Loaded once the page is idle: the first paint of a session (its newest replies and their cards)
  // goes before the grammars' evaluation, which holds the main thread for a long frame.
  whenIdle(() =>
    loadHighlighter().then(drain, () => {
      // Code stays plain, and may be asked for again: the next code shown tries the load again.
      for (const plain of waiting.splice(0)) delete plain.dataset.highlighted;
      draining = false;
    }),
  );
}

/** After the work in hand, when the browser has a moment (Safari has no requestIdleCallback: a short timer). */
const whenIdle = (work: () => void) => ("requestIdleCallback" in globalThis ? requestIdleCallback(work, { timeout: 1000 }) : setTimeout(work, 100));

/** Every code block in `root`. */
export function highlightCodeIn(root: ParentNode): void {
  for (const code of root.querySelectorAll<HTMLElement>("code[data-language]")) highlightCode(code);
}

/** A file's language as highlight.js names it, from its extension (`src/app.ts` → `ts`). */
export function languageOfPath(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : name === "Makefile" ? "makefile" : "";
}
