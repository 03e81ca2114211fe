import type { GlobalSkill, SkillsListing } from "../../../schemas/skills.ts";
import { api } from "../shared/api.ts";
import { ConfirmButton } from "../shared/confirm-button.tsx";
import { SkillInstalls } from "./skill-installs.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

interface GlobalSkillCardProps {
  skill: GlobalSkill;
  harnessNames: Map<string, string>;
  onChanged: (listing: SkillsListing) => void;
}

/** One global skill: what it is, the harnesses it is linked into, and deleting it after a second click. */
export function GlobalSkillCard({ skill, harnessNames, onChanged }: GlobalSkillCardProps) {
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
      <ConfirmButton
        verb="Delete"
        name={skill.name}
        note="Its links go from every harness, then the global copy; folders of a harness's own stay."
        busy={action.busy}
        small
        onConfirm={remove}
      />
      <Alert error={action.error} />
    </li>
  );
}
