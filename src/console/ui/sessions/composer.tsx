import type { ComponentChildren } from "preact";
import { useRef, useState } from "preact/hooks";
import type { AvailableCommand, UploadedFile } from "../../../schemas/sessions.ts";
import { DictationButton } from "../composer/dictation.tsx";
import { sendThroughOutbox } from "../composer/outbox.ts";
import { OutboxList } from "../composer/outbox-list.tsx";
import { optionId, SuggestionList, SUGGESTIONS_ID } from "../composer/suggestion-list.tsx";
import { chooseSuggestion, commandOf, mentionsIn } from "../composer/suggestion-trigger.ts";
import { type Suggestion, useSuggestions } from "../composer/use-suggestions.ts";
import { api } from "../shared/api.ts";
import { useSettings } from "../settings/console-settings.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import { useDraft } from "./use-draft.ts";

/** A file's bytes as base64, as `POST /v1/files` takes them. */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

const upload = async (file: File): Promise<UploadedFile> =>
  api<UploadedFile>("POST", "/v1/files", { name: file.name, mimeType: file.type || "application/octet-stream", contentBase64: await readBase64(file) });

/** A touch screen has no Ctrl key to speak of: its hint names only what it has (Enter, or the Send button). */
function placeholderFor(enterSends: boolean): string {
  if (matchMedia("(pointer: coarse)").matches) return enterSends ? "Ask the agent… (Enter sends)" : "Ask the agent…";
  return enterSends ? "Ask the agent… (Enter sends, Shift+Enter for a new line)" : "Ask the agent… (Ctrl+Enter sends)";
}

const CARET_KEYS = new Set(["ArrowLeft", "ArrowRight", "Home", "End"]);

/** Dictated words join the text on a line's end, a space between. */
const withDictated = (text: string, words: string) => (text === "" || /\s$/.test(text) ? text + words : `${text} ${words}`);

interface ComposerProps {
  sessionId: string;
  projectId: string;
  /** The agent's slash commands, as it last listed them (`session.commands`). */
  commands: readonly AvailableCommand[];
  onSend: () => void;
  children?: ComponentChildren;
}

/**
 * Writes and sends a prompt with its attachments: `/` at its start suggests the agent's commands, `@`
 * the files of the session's folder (a chosen one goes with the prompt as a mention), and where the
 * browser recognises speech, words can be dictated. A prompt goes through the outbox (outbox.ts): kept
 * on the device with its client id until the server has it, so one sent offline goes when it can. The
 * text being written is kept on the device too (use-draft.ts). `onSend` is told as a prompt goes;
 * `children` are drawn on its top edge (the page's "Jump to latest").
 */
export function Composer({ sessionId, projectId, commands, onSend, children }: ComposerProps) {
  const [text, setText] = useDraft(sessionId);
  const [caret, setCaret] = useState(text.length);
  const [attachments, setAttachments] = useState<UploadedFile[]>([]);
  const [mentioned, setMentioned] = useState<string[]>([]);
  const { busy, error, run } = useAction();
  const { enterSends } = useSettings().settings;
  const field = useRef<HTMLTextAreaElement>(null);
  const suggestions = useSuggestions(text, caret, commands, projectId, sessionId);
  const { trigger, options, active } = suggestions;
  const listed = trigger !== null && (options.length > 0 || suggestions.note !== null);
  const command = commandOf(text, commands);

  // What the text is now, for words dictated before the next render.
  const textNow = useRef(text);
  const edit = (next: string, nextCaret = next.length) => {
    textNow.current = next;
    setText(next);
    setCaret(nextCaret);
  };

  const attach = (input: HTMLInputElement) => {
    const files = [...(input.files ?? [])];
    input.value = "";
    return run(async () => {
      const uploaded = await Promise.all(files.map(upload));
      setAttachments((current) => [...current, ...uploaded]);
    });
  };

  const choose = (suggestion: Suggestion) => {
    if (!trigger) return;
    const chosen = chooseSuggestion(text, trigger, suggestion.value);
    if (trigger.kind === "file") setMentioned((current) => [...current, suggestion.value]);
    edit(chosen.text, chosen.caret);
    // After the render puts the text in; not once the person has typed on (their caret is theirs then:
    // moved back, "please" typed at once came out "leasep").
    requestAnimationFrame(() => {
      if (field.current?.value === chosen.text) field.current.setSelectionRange(chosen.caret, chosen.caret);
    });
  };

  const send = (event: Event) => {
    event.preventDefault();
    if (!text.trim() || busy) return;
    // Before the prompt goes: it may come as an event before the outbox is done with it.
    onSend();
    const mentions = mentionsIn(text, mentioned).map((path) => ({ path }));
    return run(async () => {
      await sendThroughOutbox({ sessionId, clientId: crypto.randomUUID(), text, attachments: attachments.map(({ fileId }) => ({ fileId })), mentions });
      edit("");
      setAttachments([]);
      setMentioned([]);
    });
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing) return;
    if (listed && event.key === "Escape") {
      event.preventDefault();
      return suggestions.dismiss();
    }
    if (listed && options.length > 0) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        return suggestions.move(event.key === "ArrowDown" ? 1 : -1);
      }
      if ((event.key === "Enter" && !event.shiftKey) || event.key === "Tab") {
        event.preventDefault();
        return choose(options[active]!);
      }
    }
    if (event.key !== "Enter") return;
    if (event.ctrlKey || event.metaKey || (enterSends && !event.shiftKey)) void send(event);
  };

  return (
    <form class="composer" onSubmit={send}>
      {children}
      <OutboxList sessionId={sessionId} takeBack={(kept) => edit(withDictated(textNow.current, kept))} />
      {attachments.length > 0 && (
        <ul class="attachments">
          {attachments.map((file) => (
            <li key={file.fileId}>
              📎 {file.name}{" "}
              <button type="button" class="quiet-button small" onClick={() => setAttachments((current) => current.filter((kept) => kept !== file))}>
                Remove {file.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      {listed && (
        <SuggestionList
          label={trigger.kind === "command" ? "The agent's commands" : "Files"}
          options={options}
          note={suggestions.note}
          active={active}
          choose={choose}
        />
      )}
      <label class="visually-hidden" for="prompt">
        Prompt
      </label>
      <textarea
        id="prompt"
        ref={field}
        rows={3}
        placeholder={placeholderFor(enterSends)}
        value={text}
        // HTML allows a textarea no role but textbox: it takes the combobox pattern's other attributes.
        aria-autocomplete="list"
        aria-controls={listed ? SUGGESTIONS_ID : undefined}
        aria-activedescendant={listed && options.length > 0 ? optionId(active) : undefined}
        aria-describedby={command?.inputHint ? "command-hint" : undefined}
        onInput={(event) => edit(event.currentTarget.value, event.currentTarget.selectionStart)}
        // A tap or a key that moves the caret (not one the list takes) changes what it suggests for.
        onClick={(event) => setCaret(event.currentTarget.selectionStart)}
        onKeyUp={(event) => CARET_KEYS.has(event.key) && setCaret(event.currentTarget.selectionStart)}
        onKeyDown={onKeyDown}
      />
      {command?.inputHint && (
        <p id="command-hint" class="quiet command-hint">
          /{command.name}: {command.inputHint}
        </p>
      )}
      <div class="composer-actions">
        <label class="file-button">
          Attach files
          <input type="file" multiple disabled={busy} onChange={(event) => void attach(event.currentTarget)} />
        </label>
        <DictationButton onText={(words) => edit(withDictated(textNow.current, words))} />
        <button type="submit" disabled={busy || !text.trim()}>
          Send
        </button>
      </div>
      <Alert error={error} />
    </form>
  );
}
