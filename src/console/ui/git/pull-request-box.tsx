import { useEffect, useState } from "preact/hooks";
import type { PullRequest } from "../../../schemas/git.ts";
import { api } from "../shared/api.ts";
import { LITERAL_INPUT } from "../shared/fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

/** This browser remembers the pull request it opened for a branch of a repository, to show its state again. */
const keyOf = (root: string, branch: string) => `atrium.pull-request.${root}#${branch}`;

const REVIEW_WORDS: Record<NonNullable<PullRequest["review"]>, string> = {
  approved: "approved",
  changes_requested: "changes requested",
  review_required: "review required",
};

/** Its checks in words: "2 passed, 1 failed", "no checks". */
function checksText({ passed, failed, pending }: PullRequest["checks"]): string {
  const counted = [
    [passed, "passed"],
    [failed, "failed"],
    [pending, "pending"],
  ].filter(([count]) => count !== 0);
  return counted.length === 0 ? "no checks" : `checks ${counted.map(([count, word]) => `${count} ${word}`).join(", ")}`;
}

/** A pull request's state in words: "open · draft · topic into main · checks 2 passed, 1 failed · approved". */
const stateText = (pull: PullRequest) =>
  [
    pull.state,
    ...(pull.draft ? ["draft"] : []),
    `${pull.headBranch} into ${pull.baseBranch}`,
    checksText(pull.checks),
    ...(pull.review ? [REVIEW_WORDS[pull.review]] : []),
  ].join(" · ");

/** The pull request of the branch opened from here: its link and its state as GitHub has it, read again on asking. */
function PullRequestState({ source, pull, onRead }: { source: string; pull: PullRequest; onRead: (pull: PullRequest) => void }) {
  const action = useAction();
  return (
    <div class="pull-request">
      <p role="status">
        <a href={pull.url} target="_blank" rel="noreferrer">
          #{pull.number} {pull.title}
        </a>{" "}
        <span class="quiet">{stateText(pull)}</span>
      </p>
      <button
        type="button"
        class="quiet-button"
        aria-disabled={action.busy}
        onClick={() => action.busy || void action.run(async () => onRead(await api<PullRequest>("GET", `${source}/git/pull-requests/${pull.number}`)))}
      >
        Check its state<span class="visually-hidden"> (#{pull.number})</span>
      </button>
      <Alert error={action.error} />
    </div>
  );
}

/**
 * A pull request of the current branch (which must have been pushed): title, body, base and draft; once
 * opened, its link and state. GitHub's refusal (and why `gh` or a token is missing) is shown as it comes.
 */
export function PullRequestBox({ source, root, branch }: { source: string; root: string; branch: string }) {
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState("");
  const [body, setBody] = useState("");
  const [base, setBase] = useState("");
  const [draft, setDraft] = useState(false);
  const [pull, setPull] = useState<PullRequest | null>(null);
  const action = useAction();
  const kept = (found: PullRequest) => {
    localStorage.setItem(keyOf(root, branch), String(found.number));
    setPull(found);
  };
  useEffect(() => {
    setPull(null);
    const number = localStorage.getItem(keyOf(root, branch));
    if (number) void action.run(async () => setPull(await api<PullRequest>("GET", `${source}/git/pull-requests/${number}`)));
  }, [source, root, branch]);
  const submit = (event: Event) => {
    event.preventDefault();
    if (action.busy) return;
    void action.run(async () => {
      kept(await api<PullRequest>("POST", `${source}/git/pull-requests`, { title, body, draft, ...(base.trim() ? { base: base.trim() } : {}) }));
      setOpen(false);
    });
  };
  return (
    <div class="pull-request-box">
      {pull && <PullRequestState source={source} pull={pull} onRead={kept} />}
      <button type="button" class="quiet-button" aria-expanded={open} onClick={() => setOpen(!open)}>
        New pull request<span class="visually-hidden"> of {branch}</span>
      </button>
      {open && (
        <form class="pull-request-form" aria-label={`New pull request of ${branch}`} onSubmit={submit}>
          <label>
            Title
            <input value={title} required onInput={(event) => setTitle(event.currentTarget.value)} />
          </label>
          <label>
            Description
            <textarea rows={3} value={body} onInput={(event) => setBody(event.currentTarget.value)} />
          </label>
          <label>
            Into (the repository's default branch when empty)
            <input value={base} onInput={(event) => setBase(event.currentTarget.value)} {...LITERAL_INPUT} />
          </label>
          <label class="check">
            <input type="checkbox" checked={draft} onChange={(event) => setDraft(event.currentTarget.checked)} /> A draft
          </label>
          <button type="submit" aria-disabled={action.busy}>
            {action.busy ? "Opening…" : "Open pull request"}
          </button>
        </form>
      )}
      <Alert error={action.error} />
    </div>
  );
}
