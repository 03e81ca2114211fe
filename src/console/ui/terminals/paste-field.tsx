import { useState } from "preact/hooks";

/** Where the browser does not let the page read the clipboard (plain http, a refusal): the text is pasted here. */
export function PasteField({ paste, cancel }: { paste(text: string): void; cancel(): void }) {
  const [text, setText] = useState("");
  return (
    <form
      class="paste-field"
      onSubmit={(event) => {
        event.preventDefault();
        paste(text);
      }}
    >
      <label>
        Text to paste into the terminal
        <textarea rows={3} value={text} onInput={(event) => setText(event.currentTarget.value)} />
      </label>
      <div class="paste-actions">
        <button type="submit" disabled={text === ""}>
          Paste
        </button>
        <button type="button" class="quiet-button" onClick={cancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
