import { codeBlockElement } from "./markdown-dom.ts";
import { highlightCodeIn } from "./highlight.ts";

/** A block of code outside markdown (a file a tool read), drawn as a reply's fenced block is. */
export function CodeBlock({ code, language }: { code: string; language: string }) {
  return (
    <div
      class="markdown"
      ref={(element) => {
        if (!element || element.dataset.code === code) return;
        element.dataset.code = code;
        element.replaceChildren(codeBlockElement(code, language));
        highlightCodeIn(element);
      }}
    />
  );
}
