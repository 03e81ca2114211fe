import type { HarnessSkill, HarnessSkillSet, SkillsListing } from "../../../schemas/skills.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

const CLASSIFICATION_LABELS: Record<HarnessSkill["classification"], string> = {
  independent: "Own",
  linked: "Global",
  duplicate: "Duplicate",
  "broken-link": "Broken link",
};

interface SkillRowProps {
  skill: HarnessSkill;
  /** Whether a global skill of this folder name exists (then making this one global is refused). */
  globalExists: boolean;
  nameOf: (harnessId: string) => string;
  onChanged: (listing: SkillsListing) => void;
}

/** One skill in a harness's folder: how it stands against the global skills, and making it global. */
function SkillRow({ skill, globalExists, nameOf, onChanged }: SkillRowProps) {
  const action = useAction();
  const own = skill.classification === "independent" || skill.classification === "duplicate";
  const makeGlobal = () =>
    action.run(async () =>
      onChanged(await api<SkillsListing>("POST", "/v1/skills/make-global", { harnessId: skill.harnessId, directoryName: skill.directoryName })),
    );

  return (
    <li class="skill-row" data-skill={skill.directoryName}>
      <div class="skill-row-title">
        <strong>{skill.name}</strong>
        <span class={`badge ${skill.classification}`}>{CLASSIFICATION_LABELS[skill.classification]}</span>
        {skill.invalid && <span class="badge error">Invalid</span>}
      </div>
      {skill.duplicateOf && (
        <p class="quiet">{skill.duplicateOf === "global" ? "Differs from the global skill of that name" : `Differs from ${nameOf(skill.duplicateOf)}'s`}</p>
      )}
      {skill.description && <p class="quiet">{skill.description}</p>}
      {own && !globalExists && (
        <div class="row-actions">
          <button type="button" class="small" disabled={action.busy} onClick={makeGlobal}>
            Make<span class="visually-hidden"> {skill.name}</span> global
          </button>
        </div>
      )}
      <Alert error={action.error} />
    </li>
  );
}

interface HarnessSkillSetCardProps {
  set: HarnessSkillSet;
  globalNames: Set<string>;
  nameOf: (harnessId: string) => string;
  onChanged: (listing: SkillsListing) => void;
}

/** A harness's skills folder and every skill in it. */
export function HarnessSkillSetCard({ set, globalNames, nameOf, onChanged }: HarnessSkillSetCardProps) {
  return (
    <li class="card skill-card" data-harness-skills={set.harnessId}>
      <h4>{set.harnessName}</h4>
      <span class="skill-path">{set.skillsDir}</span>
      {set.skills.length === 0 ? (
        <p class="quiet">No skills in this folder.</p>
      ) : (
        <ul class="skill-rows" aria-label={`${set.harnessName} skills`}>
          {set.skills.map((skill) => (
            <SkillRow key={skill.directoryName} skill={skill} globalExists={globalNames.has(skill.directoryName)} nameOf={nameOf} onChanged={onChanged} />
          ))}
        </ul>
      )}
    </li>
  );
}
