import type { Element, ElementContent, Root } from "hast";
import { common, createLowlight } from "lowlight";
import type { StyledRun } from "../shared/ansi-text.ts";
import type { Highlighter } from "../shared/highlighter-api.ts";

/**
 * The code highlighter, a script of its own that the console loads the first time it shows code: the
 * grammars (highlight.js's common languages, through lowlight) are most of its weight, and a page
 * with no code never pays for them. It hands itself over on `globalThis`.
 */
const lowlight = createLowlight(common);

/** The tree lowlight gives, flattened into runs of text, each with the classes of every span around it. */
function flatten(nodes: ElementContent[], classes: string, runs: StyledRun[]): void {
  for (const node of nodes) {
    if (node.type === "text") {
      const last = runs.at(-1);
      if (last && last.classes === classes) last.text += node.value;
      else runs.push({ text: node.value, classes });
    } else if (node.type === "element") {
      flatten(node.children, [classes, ...classNames(node)].filter(Boolean).join(" "), runs);
    }
  }
}

const classNames = (node: Element): string[] => {
  const names = node.properties.className;
  return Array.isArray(names) ? names.map(String) : [];
};

const highlighter: Highlighter = {
  knows: (language) => language !== "" && lowlight.registered(language),
  runs(code, language) {
    let tree: Root;
    try {
      tree = lowlight.highlight(language, code);
    } catch {
      // highlight.js gives up on some input (its guard against a grammar looping): the code stays plain.
      return [{ text: code, classes: "" }];
    }
    const runs: StyledRun[] = [];
    flatten(tree.children as ElementContent[], "", runs);
    return runs;
  },
};

globalThis.atriumHighlighter = highlighter;
