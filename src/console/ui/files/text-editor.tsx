import { useEffect, useRef, useState } from "preact/hooks";
import { type CodeEditorFactory, loadCodeEditor } from "./code-editor-api.ts";

interface EditorProps {
  path: string;
  /** The text it opens with. */
  text: string;
  onChange(text: string): void;
}

/**
 * A file's text to edit, focused when it opens: CodeMirror once its script has loaded (on first use), a plain
 * textarea if the script cannot be loaded. Each change goes to `onChange`.
 */
export function TextEditor({ path, text, onChange }: EditorProps) {
  // The editor's factory once loaded, "failed" when its script could not be.
  const [loaded, setLoaded] = useState<CodeEditorFactory | "failed" | undefined>(() => globalThis.atriumCodeEditor);
  const label = `Text of ${path}`;
  useEffect(() => {
    if (loaded) return;
    let current = true;
    loadCodeEditor().then(
      (factory) => current && setLoaded(factory),
      () => current && setLoaded("failed"),
    );
    return () => {
      current = false;
    };
  }, []);
  if (!loaded) return <p class="quiet">Opening the editor…</p>;
  if (loaded === "failed") return <PlainEditor text={text} label={label} onChange={onChange} />;
  return <CodeMirrorHost factory={loaded} path={path} text={text} label={label} onChange={onChange} />;
}

function CodeMirrorHost({ factory, path, text, label, onChange }: EditorProps & { factory: CodeEditorFactory; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  // The editor is made once, with the text it opens with; it keeps its own text from then on.
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => {
    const editor = factory.open(host.current!, { text, path, label, onChange: (now) => changed.current(now) });
    editor.focus();
    return () => editor.destroy();
  }, [factory, path]);
  return <div class="code-editor" ref={host} />;
}

function PlainEditor({ text, label, onChange }: Omit<EditorProps, "path"> & { label: string }) {
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => area.current?.focus(), []);
  return (
    <textarea
      ref={area}
      aria-label={label}
      value={text}
      spellcheck={false}
      autocapitalize="off"
      autocomplete="off"
      wrap="off"
      onInput={(event) => onChange(event.currentTarget.value)}
    />
  );
}
