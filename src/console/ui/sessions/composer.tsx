import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { UploadedFile } from "../../../schemas/sessions.ts";
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

/**
 * Writes and sends a prompt with its attachments. Each prompt carries a client id of its own, so a
 * send retried after a dropped answer queues it once; the text stays until the server has it, kept on the
 * device meanwhile (use-draft.ts). `onSend` is told as a prompt goes; `children` are drawn on its top edge (the page's "Jump to latest").
 */
export function Composer({ sessionId, onSend, children }: { sessionId: string; onSend: () => void; children?: ComponentChildren }) {
  const [text, setText] = useDraft(sessionId);
  const [attachments, setAttachments] = useState<UploadedFile[]>([]);
  const [clientId, setClientId] = useState(() => crypto.randomUUID());
  const { busy, error, run } = useAction();
  const { enterSends } = useSettings().settings;

  const attach = (input: HTMLInputElement) => {
    const files = [...(input.files ?? [])];
    input.value = "";
    return run(async () => {
      const uploaded = await Promise.all(files.map(upload));
      setAttachments((current) => [...current, ...uploaded]);
    });
  };

  const send = (event: Event) => {
    event.preventDefault();
    if (!text.trim() || busy) return;
    // Before the call: its prompt may come as an event before the call's answer does.
    onSend();
    return run(async () => {
      await api("POST", `/v1/sessions/${sessionId}/prompts`, { text, clientId, attachments: attachments.map(({ fileId }) => ({ fileId })) });
      setText("");
      setAttachments([]);
      setClientId(crypto.randomUUID());
    });
  };

  return (
    <form class="composer" onSubmit={send}>
      {children}
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
      <label class="visually-hidden" for="prompt">
        Prompt
      </label>
      <textarea
        id="prompt"
        rows={3}
        placeholder={placeholderFor(enterSends)}
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key !== "Enter" || event.isComposing) return;
          if (event.ctrlKey || event.metaKey || (enterSends && !event.shiftKey)) void send(event);
        }}
      />
      <div class="composer-actions">
        <label class="file-button">
          Attach files
          <input type="file" multiple disabled={busy} onChange={(event) => void attach(event.currentTarget)} />
        </label>
        <button type="submit" disabled={busy || !text.trim()}>
          Send
        </button>
      </div>
      <Alert error={error} />
    </form>
  );
}
