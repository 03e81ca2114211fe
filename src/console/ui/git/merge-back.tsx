import { useState } from "preact/hooks";
import type { MergeBody, MergeResult } from "../../../schemas/git.ts";
import { api, ApiError } from "../shared/api.ts";
import { SelectField } from "../shared/fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

const STRATEGIES = [
  { value: "merge", label: "A merge commit" },
  { value: "squash", label: "One commit (squash)" },
  { value: "rebase", label: "Its commits on top (rebase)" },
] as const;

/** The files a refused landing names (branch-landing.ts: "… without conflicts in: a, b; main is untouched"). */
const conflictsOf = (error: string | null): string[] => /without conflicts in: (.*); \S+ is untouched$/.exec(error ?? "")?.[1]?.split(", ") ?? [];

/**
 * "Merge back": lands a worktree session's committed branch on its base branch, by merge, squash or
 * rebase, and removes the worktree if asked. A refusal is shown as the server words it, the conflicting
 * files listed one a line.
 */
export function MergeBack({ sessionPath }: { sessionPath: string }) {
  const [strategy, setStrategy] = useState<MergeBody["strategy"]>("merge");
  const [removeWorktree, setRemoveWorktree] = useState(false);
  const [landed, setLanded] = useState<MergeResult | null>(null);
  const [conflicted, setConflicted] = useState(false);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    if (action.busy) return;
    setLanded(null);
    void action.run(async () => {
      try {
        setLanded(await api<MergeResult>("POST", `${sessionPath}/worktree/merge`, { strategy, removeWorktree }));
        setConflicted(false);
      } catch (failure) {
        setConflicted(failure instanceof ApiError && failure.status === 409);
        throw failure;
      }
    });
  };
  const conflicts = conflicted ? conflictsOf(action.error) : [];
  return (
    <form class="merge-back" aria-label="Merge back" onSubmit={submit}>
      <SelectField label="How" value={strategy} choices={STRATEGIES} onValue={setStrategy} />
      <label class="check">
        <input type="checkbox" checked={removeWorktree} onChange={(event) => setRemoveWorktree(event.currentTarget.checked)} /> Remove the worktree once merged
      </label>
      <button type="submit" aria-disabled={action.busy}>
        {action.busy ? "Merging…" : "Merge back"}
      </button>
      <Alert error={action.error} />
      {conflicts.length > 0 && (
        <ul class="conflicted-files" aria-label="Conflicting files">
          {conflicts.map((path) => (
            <li key={path} class="diff-path">
              {path}
            </li>
          ))}
        </ul>
      )}
      {landed && (
        <p role="status">
          {landed.branch} landed on {landed.into} ({landed.strategy}), now <code class="git-sha">{landed.head.slice(0, 10)}</code>
          {landed.worktreeRemoved ? "; the worktree is removed." : "."}
        </p>
      )}
    </form>
  );
}
