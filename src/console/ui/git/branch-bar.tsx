import { useEffect, useRef, useState } from "preact/hooks";
import type { ChangeList } from "../../../schemas/changes.ts";
import type { Branch, BranchList, GitProgress, RemoteResult } from "../../../schemas/git.ts";
import { api } from "../shared/api.ts";
import { whileFollowing } from "../shared/event-stream.ts";
import { LITERAL_INPUT, SelectField } from "../shared/fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

/** Where the branch stands against its upstream, as last fetched. */
function upstreamText(branch: Branch | undefined): string {
  if (!branch) return "";
  if (!branch.upstream) return "not pushed yet";
  if (branch.ahead === null || branch.behind === null) return `tracks ${branch.upstream} (gone)`;
  return `tracks ${branch.upstream}: ${branch.ahead} ahead, ${branch.behind} behind`;
}

interface RemoteDone {
  sentence: string;
  output: string;
}

/** The latest of git's progress in the push or pull that runs: its phase and percent, in words and as a bar. */
function RemoteProgress({ verb, progress }: { verb: GitProgress["operation"]; progress: GitProgress }) {
  return (
    <div class="remote-progress">
      <p class="quiet">{progress.percent === null ? progress.phase : `${progress.phase}: ${progress.percent}%`}</p>
      <progress max={100} value={progress.percent ?? undefined} aria-label={verb === "push" ? "Push progress" : "Pull progress"} />
    </div>
  );
}

/** Switch to a local branch, or make one (from HEAD) and switch to it. */
function BranchSwitch({ source, branches, onSwitched }: { source: string; branches: BranchList; onSwitched: (list: ChangeList) => void }) {
  const others = branches.branches.filter((branch) => !branch.current);
  const [chosen, setChosen] = useState(others[0]?.name ?? "");
  const [name, setName] = useState("");
  const action = useAction();
  const checkout = (branch: string) => api<ChangeList>("POST", `${source}/git/checkout`, { branch });
  return (
    <div class="branch-switch">
      {others.length > 0 && (
        <form
          class="row-actions"
          onSubmit={(event) => {
            event.preventDefault();
            if (!action.busy) void action.run(async () => onSwitched(await checkout(chosen)));
          }}
        >
          <SelectField label="Branch" value={chosen} choices={others.map((branch) => ({ value: branch.name, label: branch.name }))} onValue={setChosen} />
          <button type="submit" aria-disabled={action.busy}>
            Switch
          </button>
        </form>
      )}
      <form
        class="row-actions"
        onSubmit={(event) => {
          event.preventDefault();
          if (action.busy) return;
          void action.run(async () => {
            await api<Branch>("POST", `${source}/git/branches`, { name: name.trim() });
            onSwitched(await checkout(name.trim()));
          });
        }}
      >
        <label>
          New branch
          <input value={name} required onInput={(event) => setName(event.currentTarget.value)} {...LITERAL_INPUT} />
        </label>
        <button type="submit" aria-disabled={action.busy}>
          Create and switch
        </button>
      </form>
      <Alert error={action.error} />
    </div>
  );
}

/**
 * The branch the folder is on and how it stands against its upstream; push (setting the upstream when
 * there is none) and pull (fast-forward only), saying what runs and then what the remote said, its
 * refusal word for word; switching to or making a branch. Read again each time the panel's list is.
 */
export function BranchBar({
  source,
  repositoryRoot,
  revision,
  onSwitched,
}: {
  source: string;
  /** The repository's root: its `git.progress` events are the ones shown. */
  repositoryRoot: string;
  revision: number;
  onSwitched: (list: ChangeList) => void;
}) {
  const [branches, setBranches] = useState<BranchList | null>(null);
  const [switching, setSwitching] = useState(false);
  const [running, setRunning] = useState<string | null>(null);
  const [done, setDone] = useState<RemoteDone | null>(null);
  const [progress, setProgress] = useState<GitProgress | null>(null);
  const read = useAction();
  const remote = useAction();
  const switchButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    void read.run(async () => setBranches(await api<BranchList>("GET", `${source}/git/branches`)));
  }, [source, revision]);
  const current = branches?.branches.find((branch) => branch.current);
  const exchange = (verb: GitProgress["operation"], doing: string, body: object, past: string) => {
    if (remote.busy) return;
    setDone(null);
    setRunning(doing);
    setProgress(null);
    const showProgress = (events: { payload: unknown }[]) => {
      const latest = events.map((event) => event.payload as GitProgress).findLast((each) => each.repositoryRoot === repositoryRoot && each.operation === verb);
      if (latest) setProgress(latest);
    };
    void remote
      .run(async () => {
        const result = await whileFollowing(["git.progress"], showProgress, () => api<RemoteResult>("POST", `${source}/git/${verb}`, body));
        setDone({
          sentence: `${past} ${result.branch} ${verb === "push" ? "to" : "from"} ${result.remote} (now ${result.head.slice(0, 10)}).`,
          output: result.output,
        });
      })
      .finally(() => {
        setRunning(null);
        setProgress(null);
      });
  };
  return (
    <div class="branch-bar">
      <p class="branch-now">
        On <strong>{branches ? (branches.current ?? "a detached HEAD") : "…"}</strong> <span class="quiet">{upstreamText(current)}</span>
      </p>
      <Alert error={read.error} />
      <div class="row-actions">
        <button
          type="button"
          aria-disabled={remote.busy}
          onClick={() => exchange("push", "Pushing…", { setUpstream: current !== undefined && current.upstream === null }, "Pushed")}
        >
          Push
        </button>
        <button type="button" aria-disabled={remote.busy} onClick={() => exchange("pull", "Pulling…", {}, "Pulled")}>
          Pull
        </button>
        <button type="button" class="quiet-button" ref={switchButton} aria-expanded={switching} onClick={() => setSwitching(!switching)}>
          Switch branch
        </button>
      </div>
      <p role="status" class="quiet">
        {running ?? done?.sentence ?? ""}
      </p>
      {running && progress && <RemoteProgress verb={progress.operation} progress={progress} />}
      {done?.output && <pre>{done.output}</pre>}
      <Alert error={remote.error} />
      {switching && branches && (
        <BranchSwitch
          source={source}
          branches={branches}
          onSwitched={(list) => {
            setSwitching(false);
            onSwitched(list);
            switchButton.current?.focus();
          }}
        />
      )}
    </div>
  );
}
