import { useState } from "preact/hooks";
import type { Project } from "../../../schemas/projects.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { TextField } from "../shared/fields.tsx";

/** Makes a project of a folder already on the server's machine, git repository or not. */
export function AddFolderForm({ id, hidden, onAdded }: { id: string; hidden: boolean; onAdded: (project: Project) => void }) {
  const [folderPath, setFolderPath] = useState("");
  const [name, setName] = useState("");
  const { busy, error, run } = useAction();

  const add = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      onAdded(await api<Project>("POST", "/v1/projects", { folderPath: folderPath.trim(), name: name.trim() || undefined }));
      setFolderPath("");
      setName("");
    });
  };

  return (
    <form id={id} class="card project-form" aria-label="Add a folder" hidden={hidden} onSubmit={add}>
      <TextField label="Folder path" value={folderPath} placeholder="/home/me/code/app" required onValue={setFolderPath} />
      <TextField label="Name (optional)" value={name} onValue={setName} />
      <div class="project-form-buttons">
        <button type="submit" disabled={busy}>
          {busy ? "Adding…" : "Add"}
        </button>
      </div>
      <Alert error={error} />
    </form>
  );
}
