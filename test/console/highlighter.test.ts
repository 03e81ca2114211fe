import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Highlighter } from "../../src/console/ui/shared/highlighter-api.ts";

// Loaded by path, as the browser loads it: its grammars' types declare the DOM, which this program has not.
await import(join(import.meta.dir, "..", "..", "src", "console", "ui", "highlighter", "highlighter.ts"));
const highlighter: Highlighter = globalThis.atriumHighlighter!;

describe("the lazily loaded highlighter", () => {
  test("hands itself over, knows the common languages by name and alias, and not others", () => {
    expect(highlighter).toBeDefined();
    for (const language of ["ts", "typescript", "js", "py", "sh", "json", "go", "rust", "diff", "yaml", "css", "html"])
      expect(highlighter.knows(language)).toBe(true);
    expect(highlighter.knows("")).toBe(false);
    expect(highlighter.knows("no-such-language")).toBe(false);
  });

  test("runs cover the code exactly, nested spans' classes joined", () => {
    // A template literal's placeholder, written as the code's text (not one of this file's).
    const placeholder = `$${"{name}"}`;
    const code = `const greeting = \`hi ${placeholder}\`; // say it\nfunction f() {}`;
    const runs = highlighter.runs(code, "ts");
    expect(runs.map((run) => run.text).join("")).toBe(code);
    expect(runs.find((run) => run.text === "const")?.classes).toBe("hljs-keyword");
    expect(runs.find((run) => run.text === "// say it")?.classes).toBe("hljs-comment");
    expect(runs.find((run) => run.text === placeholder)?.classes).toBe("hljs-string hljs-subst");
    expect(runs.find((run) => run.text === "f")?.classes).toBe("hljs-title function_");
  });
});
