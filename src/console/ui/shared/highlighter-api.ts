import type { StyledRun } from "./ansi-text.ts";

/** What the lazily loaded highlighter script (ui/highlighter/) offers once it has run. */
export interface Highlighter {
  /** Whether it has a grammar for this language name or alias (`ts`, `python`, `sh`…). */
  knows(language: string): boolean;
  /** The code as runs of text, each with its highlight.js classes (`hljs-keyword`…); empty for plain text. */
  runs(code: string, language: string): StyledRun[];
}

declare global {
  /** Set by the highlighter's script when it has loaded. */
  var atriumHighlighter: Highlighter | undefined;
}
