import { useState } from "preact/hooks";
import type { Commit, CommitMessage } from "../../../schemas/git.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

/**
 * The commit of what is staged: the message (which "Write the message" fills from the staged files, to be
 * edited), amend and "skip hooks"; the new commit's sha and what the hooks wrote after it, and a failing hook's words (git's 409) as they are. The button stays in place
 * while git works, so the focus stays on it.
 */
export function CommitBox({ source }: { source: string }) {
  const [message, setMessage] = useState("");
  const [amend, setAmend] = useState(false);
  const [noVerify, setNoVerify] = useState(false);
  const [made, setMade] = useState<Commit | null>(null);
  const action = useAction();
  const writer = useAction();
  const write = () => {
    if (!writer.busy) void writer.run(async () => setMessage((await api<CommitMessage>("POST", `${source}/git/commit-message`)).message));
  };
  const submit = (event: Event) => {
    event.preventDefault();
    if (action.busy) return;
    setMade(null);
    void action.run(async () => {
      setMade(await api<Commit>("POST", `${source}/git/commit`, { message, amend, noVerify }));
      setMessage("");
      setAmend(false);
    });
  };
  return (
    <form class="commit-box" aria-label="Commit" onSubmit={submit}>
      <label>
        Commit message
        <textarea rows={3} required value={message} onInput={(event) => setMessage(event.currentTarget.value)} />
      </label>
      <button type="button" class="quiet-button" aria-disabled={writer.busy} onClick={write}>
        {writer.busy ? "Writing…" : "Write the message"}
      </button>
      <Alert error={writer.error} />
      <div class="row-actions">
        <label class="check">
          <input type="checkbox" checked={amend} onChange={(event) => setAmend(event.currentTarget.checked)} /> Amend the last commit
        </label>
        <label class="check">
          <input type="checkbox" checked={noVerify} onChange={(event) => setNoVerify(event.currentTarget.checked)} /> Skip hooks
        </label>
      </div>
      <button type="submit" aria-disabled={action.busy}>
        {action.busy ? "Committing…" : "Commit staged changes"}
      </button>
      <Alert error={action.error} />
      {made && (
        <>
          <p role="status">
            Committed <code class="git-sha">{made.sha.slice(0, 10)}</code>
            {made.branch ? ` on ${made.branch}` : " on a detached HEAD"}.
          </p>
          {made.output && <pre>{made.output}</pre>}
        </>
      )}
    </form>
  );
}
