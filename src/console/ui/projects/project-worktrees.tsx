import { useEffect, useState } from "preact/hooks";
import type { Worktree } from "../../../schemas/projects.ts";
import { api } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import { Alert } from "../shared/use-action.tsx";
import { ChangesToggle } from "../git/changes-panel.tsx";

/** The git worktrees the server made for a project's sessions, read when shown. */
export function ProjectWorktrees({ id, projectId }: { id: string; projectId: string }) {
  const [worktrees, setWorktrees] = useState<Worktree[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api<Worktree[]>("GET", `/v1/projects/${encodeURIComponent(projectId)}/worktrees`).then(setWorktrees, (failure) => setError(failureText(failure)));
  }, [projectId]);

  return (
    <div id={id} class="project-worktrees">
      <Alert error={error} />
      {worktrees === null ? (
        !error && <p class="quiet">Loading worktrees…</p>
      ) : worktrees.length === 0 ? (
        <p class="quiet">No worktrees: sessions that run in a worktree make them.</p>
      ) : (
        <ul aria-label="Worktrees">
          {worktrees.map((worktree) => (
            <li key={worktree.id}>
              <strong>{worktree.branch}</strong> <span class="quiet">from {worktree.baseRef}</span>
              <span class="project-path">{worktree.path}</span>
              <ChangesToggle source={`/v1/projects/${encodeURIComponent(projectId)}/worktrees/${encodeURIComponent(worktree.id)}`} name={worktree.branch} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
