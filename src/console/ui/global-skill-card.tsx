import { useState } from "preact/hooks";
import type { GlobalSkill, SkillsListing } from "../../schemas/skills.ts";
import { api } from "./api.ts";
import { SkillInstalls } from "./skill-installs.tsx";
import { Alert, useAction } from "./use-action.tsx";

interface GlobalSkillCardProps {
  skill: GlobalSkill;
  harnessNames: Map<string, string>;
  onChanged: (listing: SkillsListing) => void;
}

/** One global skill: what it is, the harnesses it is linked into, and deleting it after a second click. */
export function GlobalSkillCard({ skill, harnessNames, onChanged }: GlobalSkillCardProps) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const remove = () => action.run(async () => onChanged(await api<SkillsListing>("DELETE", `/v1/skills/${encodeURIComponent(skill.directoryName)}`)));

  return (
    <li class="card skill-card" data-skill={skill.directoryName}>
      <div class="card-title">
        <h4>{skill.name}</h4>
        {skill.invalid && <span class="badge error">Invalid</span>}
      </div>
      {skill.description && <p>{skill.description}</p>}
      <span class="skill-path">{skill.path}</span>
      <SkillInstalls skill={skill} harnessNames={harnessNames} action={action} onChanged={onChanged} />
      {confirming ? (
        <div class="skill-confirm">
          <p class="quiet">Its links go from every harness, then the global copy; folders of a harness's own stay.</p>
          <div class="row-actions">
            <button type="button" class="danger" disabled={action.busy} onClick={remove}>
              Delete {skill.name}?
            </button>
            <button type="button" class="quiet-button" disabled={action.busy} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <div class="row-actions">
          <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => setConfirming(true)}>
            Delete<span class="visually-hidden"> {skill.name}</span>
          </button>
        </div>
      )}
      <Alert error={action.error} />
    </li>
  );
}
