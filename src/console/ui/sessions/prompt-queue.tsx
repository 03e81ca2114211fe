import { useState } from "preact/hooks";
import type { QueuedPrompt } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

function QueuedPromptRow({ prompt }: { prompt: QueuedPrompt }) {
  const [editing, setEditing] = useState<string | null>(null);
  const action = useAction();
  const path = `/v1/sessions/${prompt.sessionId}/prompts/${prompt.id}`;
  const save = async (event: Event) => {
    event.preventDefault();
    if (editing !== null && (await action.run(() => api("PATCH", path, { text: editing })))) setEditing(null);
  };
  return (
    <li class="queued-prompt" data-prompt={prompt.id}>
      {editing === null ? (
        <>
          <span class="queued-text">{prompt.text}</span>
          <span class="row-actions">
            <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => setEditing(prompt.text)}>
              Edit
            </button>
            <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => action.run(() => api("DELETE", path))}>
              Drop
            </button>
          </span>
        </>
      ) : (
        <form onSubmit={save}>
          <label class="visually-hidden" for={`edit-${prompt.id}`}>
            Queued prompt
          </label>
          <textarea id={`edit-${prompt.id}`} rows={2} value={editing} onInput={(event) => setEditing(event.currentTarget.value)} />
          <span class="row-actions">
            <button type="submit" class="small" disabled={action.busy || !editing.trim()}>
              Save
            </button>
            <button type="button" class="quiet-button small" onClick={() => setEditing(null)}>
              Keep as it was
            </button>
          </span>
        </form>
      )}
      <Alert error={action.error} />
    </li>
  );
}

/** Prompts waiting for the turn in flight to end: each can still be edited or dropped. */
export function PromptQueue({ prompts }: { prompts: QueuedPrompt[] }) {
  if (prompts.length === 0) return null;
  return (
    <section class="panel" aria-label="Queued prompts">
      <h3>Queued</h3>
      <ol class="queue">
        {prompts.map((prompt) => (
          <QueuedPromptRow key={prompt.id} prompt={prompt} />
        ))}
      </ol>
    </section>
  );
}
