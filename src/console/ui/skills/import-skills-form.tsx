import { useState } from "preact/hooks";
import type { ImportedSkills } from "../../../schemas/skills.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { TextField } from "../shared/fields.tsx";

/** "a, b" → ["a", "b"] (a name may hold spaces); none means every skill in the source. */
const namesIn = (text: string) =>
  text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");

/** Imports skills from a git repository or a folder on the server's machine into the global skills. */
export function ImportSkillsForm({ onImported }: { onImported: (imported: ImportedSkills) => void }) {
  const [source, setSource] = useState("");
  const [names, setNames] = useState("");
  const { busy, error, run } = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    const skillNames = namesIn(names);
    void run(async () => {
      onImported(
        await api<ImportedSkills>("POST", "/v1/skills/import-remote", { source: source.trim(), skillNames: skillNames.length > 0 ? skillNames : undefined }),
      );
      setSource("");
      setNames("");
    });
  };

  return (
    <form class="card skill-import" aria-label="Import skills" onSubmit={submit}>
      <TextField label="Git URL or folder" value={source} placeholder="https://github.com/org/repo/tree/main/skills" required onValue={setSource} />
      <TextField label="Skill names, comma-separated (optional; all when empty)" value={names} onValue={setNames} />
      <div class="row-actions">
        <button type="submit" disabled={busy}>
          {busy ? "Importing…" : "Import"}
        </button>
      </div>
      <Alert error={error} />
    </form>
  );
}
