import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { bracketMatching, indentOnInput } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from "@codemirror/view";
import type { CodeEditor, CodeEditorFactory, CodeEditorOptions } from "../code-editor-api.ts";
import { ConstructedStyles } from "../../shared/constructed-styles.ts";
import { languageOf } from "./languages.ts";
import { look } from "./look.ts";

/**
 * The Files view's editor (CodeMirror 6 and a few language modes), a script of its own that the console
 * loads the first time a file is edited. It hands itself over on `globalThis`.
 */

/**
 * CodeMirror keeps one `<style>` element per document for all its editors, made with the first: its
 * rules go to a constructed stylesheet instead, kept for the page's life since later editors share it.
 */
const styles = new ConstructedStyles(document);

function open(parent: HTMLElement, { text, path, label, onChange }: CodeEditorOptions): CodeEditor {
  const state = EditorState.create({
    doc: text,
    extensions: [
      lineNumbers(),
      highlightActiveLineGutter(),
      highlightActiveLine(),
      history(),
      indentOnInput(),
      bracketMatching(),
      // No Tab binding: Tab leaves the editor, as it does a textarea (a keyboard user is not trapped).
      keymap.of([...defaultKeymap, ...historyKeymap]),
      languageOf(path),
      look,
      EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0", autocapitalize: "off", autocorrect: "off", spellcheck: "false" }),
      EditorView.updateListener.of((update) => update.docChanged && onChange(update.state.doc.toString())),
    ],
  });
  let view: EditorView | undefined;
  styles.capture(() => {
    view = new EditorView({ state, parent });
  });
  const editor = view!;
  return { focus: () => editor.focus(), destroy: () => editor.destroy() };
}

const factory: CodeEditorFactory = { open };
globalThis.atriumCodeEditor = factory;
