import { useEffect, useState } from "preact/hooks";
import { type Highlighter, loadedHighlighter, loadHighlighter } from "./highlight.ts";

/** The highlighter for a view that shows `language`: loaded on first need, undefined until then or when there is no language. */
export function useHighlighter(language: string): Highlighter | undefined {
  const [highlighter, setHighlighter] = useState(loadedHighlighter);
  useEffect(() => {
    if (!language || highlighter) return;
    let current = true;
    loadHighlighter().then(
      (loaded) => current && setHighlighter(loaded),
      () => {},
    );
    return () => {
      current = false;
    };
  }, [language, highlighter]);
  return language && highlighter?.knows(language) ? highlighter : undefined;
}
