import { useRef, useState } from "preact/hooks";
import type { Commit, CommitMessage } from "../../../schemas/git.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

/** A written message that has not replaced the box's text: the user typed while it was written, or the agent could not write it. */
interface Written {
  message: string;
  /** The user's own text stayed in the box. */
  kept: boolean;
  /** Why the agent's message was wanted but this is the summary of the files. */
  agentError?: string;
}

/**
 * The commit of what is staged: the message (which "Write the message" fills, to be edited: in a session's
 * panel its agent writes it from the staged diff, which takes seconds; elsewhere, or when the agent cannot,
 * from the staged files), amend and "skip hooks"; the new commit's sha and what the hooks wrote after it, and
 * a failing hook's words (git's 409) as they are. Text typed while the message is written stays, and the
 * written one is offered beside it. The buttons stay in place while they work, so the focus stays on them.
 */
export function CommitBox({ source, agentWrites }: { source: string; agentWrites: boolean }) {
  const [message, setMessage] = useState("");
  /** The box's text now, for a written message that arrives later. */
  const typed = useRef("");
  typed.current = message;
  const [written, setWritten] = useState<Written | null>(null);
  const [amend, setAmend] = useState(false);
  const [noVerify, setNoVerify] = useState(false);
  const [made, setMade] = useState<Commit | null>(null);
  const action = useAction();
  const writer = useAction();
  const write = () => {
    if (writer.busy) return;
    const before = typed.current;
    setWritten(null);
    void writer.run(async () => {
      const answer = await api<CommitMessage>("POST", `${source}/git/commit-message`);
      const kept = typed.current !== before && typed.current.trim() !== "";
      if (!kept) setMessage(answer.message);
      if (kept || answer.agentError) setWritten({ message: answer.message, kept, agentError: answer.agentError });
    });
  };
  const useWritten = () => {
    if (written) setMessage(written.message);
    setWritten(null);
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
        {writer.busy ? (agentWrites ? "The agent is writing…" : "Writing…") : "Write the message"}
      </button>
      <Alert error={writer.error} />
      {written && <WrittenNote written={written} onUse={useWritten} />}
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

/** Says why the box does not hold the agent's message, and offers a message kept aside. */
function WrittenNote({ written, onUse }: { written: Written; onUse: () => void }) {
  return (
    <div class="git-notice commit-written" role="status">
      {written.agentError && <p>The agent could not write it ({written.agentError}), so this is a summary of the staged files.</p>}
      {written.kept && (
        <>
          <p>You typed while it was written, so your text stays. The written message:</p>
          <pre>{written.message}</pre>
          <button type="button" class="quiet-button" onClick={onUse}>
            Use the written message
          </button>
        </>
      )}
    </div>
  );
}
