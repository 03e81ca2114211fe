import { inlineMarkdownNodes } from "./markdown-dom.ts";

/** A short text in markdown (a plan's step): drawn into its span, which Preact leaves alone. */
export function InlineMarkdown({ text }: { text: string }) {
  return (
    <span
      class="inline-markdown"
      ref={(element) => {
        element?.replaceChildren(...inlineMarkdownNodes(text));
      }}
    />
  );
}
