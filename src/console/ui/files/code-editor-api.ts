import { lazyScript } from "../shared/lazy-script.ts";

/** A file's text being edited, as the lazily loaded editor's script (code-editor/) offers it. */
export interface CodeEditor {
  focus(): void;
  destroy(): void;
}

export interface CodeEditorOptions {
  text: string;
  /** The file's path: its name chooses the language. */
  path: string;
  /** The editable text's name for screen readers. */
  label: string;
  onChange(text: string): void;
}

/** What the editor's script hands over once it has run. */
export interface CodeEditorFactory {
  open(parent: HTMLElement, options: CodeEditorOptions): CodeEditor;
}

declare global {
  /** Set by the editor's script when it has loaded. */
  var atriumCodeEditor: CodeEditorFactory | undefined;
}

/**
 * Loads CodeMirror once, the first time a file is edited: most visits only read, and never pay for it.
 * Served by src/console/console-assets.ts.
 */
export const loadCodeEditor = lazyScript("/code-editor.js", () => globalThis.atriumCodeEditor, "the code editor");
