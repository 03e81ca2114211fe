import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { EditorView } from "@codemirror/view";
import { tags } from "@lezer/highlight";

/** The colours of src/console/ui/shared/highlight.css (GitHub's), light or dark with the console's theme. */
const HIGHLIGHT = HighlightStyle.define([
  { tag: [tags.keyword, tags.typeName, tags.modifier, tags.self], color: "light-dark(#cf222e, #ff7b72)" },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName), tags.className], color: "light-dark(#8250df, #d2a8ff)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom, tags.propertyName, tags.attributeName, tags.operator], color: "light-dark(#0550ae, #79c0ff)" },
  { tag: [tags.string, tags.regexp, tags.special(tags.string)], color: "light-dark(#0a3069, #a5d6ff)" },
  { tag: [tags.standard(tags.variableName), tags.definition(tags.propertyName)], color: "light-dark(#953800, #ffa657)" },
  { tag: [tags.comment, tags.meta], color: "light-dark(#6e7781, #8b949e)" },
  { tag: [tags.tagName, tags.quote], color: "light-dark(#116329, #7ee787)" },
  { tag: tags.heading, color: "light-dark(#0550ae, #1f6feb)", fontWeight: "bold" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strong, fontWeight: "bold" },
  { tag: tags.link, textDecoration: "underline" },
]);

const MONOSPACE = "ui-monospace, SFMono-Regular, Menlo, monospace";

/** Sized like the textarea it stands in for, in the console's own colours (its custom properties). */
const THEME = EditorView.theme({
  "&": { minHeight: "50vh", border: "1px solid var(--line)", borderRadius: "0.4rem", backgroundColor: "var(--card)", color: "var(--fg)" },
  "&.cm-focused": { outline: "2px solid var(--accent)", outlineOffset: "1px" },
  ".cm-scroller": { fontFamily: MONOSPACE, fontSize: "0.85rem", lineHeight: "1.45" },
  ".cm-content": { minHeight: "50vh", padding: "0.4rem 0" },
  ".cm-gutters": { backgroundColor: "transparent", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "light-dark(#f6f8fa, #1c2128)" },
});

export const look = [THEME, syntaxHighlighting(HIGHLIGHT)];
