import { useState } from "preact/hooks";
import type { SessionListItem } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { ConfirmButton } from "../shared/confirm-button.tsx";
import { InlineForm } from "../shared/inline-form.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import { forgetDraft } from "./use-draft.ts";

/**
 * A session's own changes, in the list's row and on its page: rename (a title given here is never
 * replaced by the agent's), archive or restore (an archived session leaves the list, and still works),
 * and delete, asked again first. Each change comes back as `session.updated` or `session.deleted`.
 */
export function SessionActions({ session, onDeleted }: { session: SessionListItem; onDeleted?: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const action = useAction();
  const path = `/v1/sessions/${encodeURIComponent(session.id)}`;
  const named = <span class="visually-hidden"> {session.title}</span>;
  if (renaming) {
    return (
      <InlineForm
        label="Title"
        initial={session.title}
        submitLabel="Save"
        busy={action.busy}
        onCancel={() => setRenaming(false)}
        onSubmit={(title) => void action.run(() => api("PATCH", path, { title })).then((done) => done && setRenaming(false))}
      />
    );
  }
  return (
    <div class="session-actions">
      <div class="row-actions">
        <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => setRenaming(true)}>
          Rename{named}
        </button>
        <button
          type="button"
          class="quiet-button small"
          disabled={action.busy}
          onClick={() => void action.run(() => api("PATCH", path, { archived: session.archivedAt === null }))}
        >
          {session.archivedAt === null ? "Archive" : "Restore"}
          {named}
        </button>
        <ConfirmButton
          verb="Delete"
          name={session.title}
          note="Its conversation goes with it; this cannot be undone."
          busy={action.busy}
          small
          onConfirm={() =>
            void action.run(async () => {
              await api("DELETE", path);
              forgetDraft(session.id);
              onDeleted?.();
            })
          }
        />
      </div>
      <Alert error={action.error} />
    </div>
  );
}
