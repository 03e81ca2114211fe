/**
 * The browser globals the benchmarks' page-side functions use. The bench compiles against Bun's types
 * without the DOM library, and those functions run in the page (Playwright sends their source), so
 * each reads its globals through `globalThis as unknown as PageGlobals`.
 */
export interface PageElement {
  readonly firstChild: unknown;
  textContent: string | null;
  readonly style: Record<string, string>;
  append(child: PageElement): void;
  setAttribute(name: string, value: string): void;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}

/** A PerformanceEntry with the fields of the kinds read here (element, paint, resource). */
export interface PageTimingEntry {
  name: string;
  startTime: number;
  /** Element Timing: when the frame that first drew the element was presented. */
  renderTime?: number;
  identifier?: string;
  responseEnd?: number;
}

export interface PageGlobals {
  document: {
    querySelector(selector: string): PageElement | null;
    querySelectorAll(selector: string): ArrayLike<PageElement>;
    createElement(tag: string): PageElement;
    readonly body: PageElement | null;
  };
  requestAnimationFrame(callback: (frameTime: number) => void): number;
  MutationObserver: new (
    callback: () => void,
  ) => {
    observe(
      target: unknown,
      options: { childList?: boolean; subtree?: boolean; characterData?: boolean; attributes?: boolean; attributeFilter?: string[] },
    ): void;
    disconnect(): void;
  };
  PerformanceObserver: new (callback: (list: { getEntries(): PageTimingEntry[] }) => void) => { observe(options: { type: string; buffered: boolean }): void };
  performance: { now(): number; getEntriesByType(type: string): PageTimingEntry[]; getEntriesByName(name: string): PageTimingEntry[] };
}
