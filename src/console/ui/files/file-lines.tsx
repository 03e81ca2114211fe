import { useEffect, useMemo, useRef } from "preact/hooks";
import { languageOfPath } from "../shared/highlight.ts";
import { useHighlighter } from "../shared/use-highlighter.ts";
import { lineRuns } from "./line-runs.ts";

/**
 * A file's text with line numbers, coloured by its language (the highlighter loaded on first need). Long
 * lines scroll inside the box, never the page; with `line`, that line is marked and scrolled into view.
 */
export function FileLines({ path, text, line }: { path: string; text: string; line?: number }) {
  const language = languageOfPath(path);
  const highlighter = useHighlighter(language);
  const lines = useMemo(() => lineRuns(text, highlighter, language), [text, highlighter, language]);
  const box = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!line) return;
    box.current?.querySelector(`[data-line="${line}"]`)?.scrollIntoView({ block: "center" });
  }, [line, lines]);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls sideways takes the focus, so a keyboard can scroll it.
    <section class="file-text" ref={box} aria-label={`Text of ${path}`} tabIndex={0}>
      {lines.map((runs, index) => (
        <div key={index} class={index + 1 === line ? "file-line target" : "file-line"} data-line={index + 1}>
          <span class="line-number" aria-hidden="true">
            {index + 1}
          </span>
          <code>
            {runs.map((run, at) =>
              run.classes ? (
                <span key={at} class={run.classes}>
                  {run.text}
                </span>
              ) : (
                run.text
              ),
            )}
            {runs.length === 0 && "\u200b"}
          </code>
        </div>
      ))}
    </section>
  );
}
