import { useState } from "preact/hooks";
import type { Harness } from "../../../schemas/harnesses.ts";
import type { Project } from "../../../schemas/projects.ts";
import type { Session } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { sessionHref } from "../shell/router.ts";
import { SelectField } from "../shared/fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

/** Starts a session of a ready harness in a project, then opens it. */
export function NewSessionForm({ projects, harnesses }: { projects: Project[]; harnesses: Harness[] }) {
  const usable = harnesses.filter((harness) => harness.enabled);
  const [projectId, setProjectId] = useState("");
  const [harnessId, setHarnessId] = useState("");
  const [title, setTitle] = useState("");
  const [inWorktree, setInWorktree] = useState(false);
  const { busy, error, run } = useAction();
  const project = projects.find((listed) => listed.id === projectId) ?? projects[0];
  const harness = usable.find((listed) => listed.id === harnessId) ?? usable[0];
  const canUseWorktree = project?.locations.some((location) => location.isGitRepository) ?? false;

  const submit = (event: Event) => {
    event.preventDefault();
    if (!project || !harness) return;
    void run(async () => {
      const session = await api<Session>("POST", "/v1/sessions", {
        projectId: project.id,
        harnessId: harness.id,
        title: title.trim() || undefined,
        runLocation: canUseWorktree && inWorktree ? "worktree" : undefined,
      });
      location.hash = sessionHref(session.id);
    });
  };

  if (projects.length === 0) return <p class="quiet">Add a project first (Projects), then start sessions in it.</p>;
  return (
    <form class="new-session card" aria-label="New session" onSubmit={submit}>
      <SelectField label="Project" value={project?.id} choices={projects.map(({ id, name }) => ({ value: id, label: name }))} onValue={setProjectId} />
      <SelectField label="Agent" value={harness?.id} choices={usable.map(({ id, name }) => ({ value: id, label: name }))} onValue={setHarnessId} />
      <label>
        Title
        <input value={title} placeholder="From the first prompt" onInput={(event) => setTitle(event.currentTarget.value)} />
      </label>
      {canUseWorktree && (
        <label class="check">
          <input type="checkbox" checked={inWorktree} onChange={(event) => setInWorktree(event.currentTarget.checked)} />
          In a worktree of its own
        </label>
      )}
      <button type="submit" disabled={busy || !harness}>
        {busy ? "Starting…" : "Start"}
      </button>
      <Alert error={error} />
    </form>
  );
}
