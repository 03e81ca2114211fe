import type { Static } from "@sinclair/typebox";
import { useState } from "preact/hooks";
import type { Project, ProjectEvents } from "../../../schemas/projects.ts";
import { api } from "../shared/api.ts";
import { whileFollowing } from "../shared/event-stream.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { TextField } from "../shared/fields.tsx";

type CloneProgress = Static<(typeof ProjectEvents)["project.clone.progress"]>;

const ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** The id the clone's project will have, chosen here so its progress events can be told from others'. */
const newProjectId = () => `prj_${Array.from(crypto.getRandomValues(new Uint8Array(20)), (byte) => ID_ALPHABET[byte & 31]).join("")}`;

/** git's phase and percentage while a clone runs; a bar that only moves until git says how far it is. */
function CloneProgressBar({ progress }: { progress: CloneProgress | null }) {
  return (
    <div class="clone-progress">
      <p role="status">{progress ? `${progress.phase}: ${progress.percent}%` : "Cloning…"}</p>
      <progress max={100} value={progress?.percent} aria-label="Clone progress" />
    </div>
  );
}

/** Clones a repository into the server's data dir, showing git's progress while the request is pending. */
export function CloneProjectForm({ id, hidden, onCloned }: { id: string; hidden: boolean; onCloned: (project: Project) => void }) {
  const [url, setUrl] = useState("");
  const [name, setName] = useState("");
  const [progress, setProgress] = useState<CloneProgress | null>(null);
  const { busy, error, run } = useAction();

  const clone = (event: Event) => {
    event.preventDefault();
    const projectId = newProjectId();
    setProgress(null);
    void run(async () => {
      const cloned = await whileFollowing(
        ["project.clone.progress"],
        (events) => {
          const reported = events.map((event) => event.payload as CloneProgress).findLast((each) => each.projectId === projectId);
          if (reported) setProgress(reported);
        },
        () => api<Project>("POST", "/v1/projects/from-git", { url: url.trim(), id: projectId, name: name.trim() || undefined }),
      );
      onCloned(cloned);
      setUrl("");
      setName("");
    });
  };

  return (
    <form id={id} class="card project-form" aria-label="Clone a repository" hidden={hidden} onSubmit={clone}>
      <TextField label="Repository URL" value={url} placeholder="https://github.com/owner/repo.git" required onValue={setUrl} />
      <TextField label="Name (optional)" value={name} onValue={setName} />
      <div class="project-form-buttons">
        <button type="submit" disabled={busy}>
          {busy ? "Cloning…" : "Clone"}
        </button>
      </div>
      {busy && <CloneProgressBar progress={progress} />}
      <Alert error={error} />
    </form>
  );
}
