import { useState } from "preact/hooks";
import type { GlobalSkill, SkillsListing } from "../../../schemas/skills.ts";
import { api } from "../shared/api.ts";
import type { Action } from "../shared/use-action.tsx";

interface SkillInstallsProps {
  skill: GlobalSkill;
  /** Every harness that reads skills, by id, with its name. */
  harnessNames: Map<string, string>;
  action: Action;
  onChanged: (listing: SkillsListing) => void;
}

const skillPath = (skill: GlobalSkill) => `/v1/skills/${encodeURIComponent(skill.directoryName)}/install`;

/** Where a global skill is linked (a link can be removed), where a harness keeps its own, and where it can go. */
export function SkillInstalls({ skill, harnessNames, action, onChanged }: SkillInstallsProps) {
  const change = (call: () => Promise<SkillsListing>) => action.run(async () => onChanged(await call()));
  const nameOf = (harnessId: string) => harnessNames.get(harnessId) ?? harnessId;
  const elsewhere = [...harnessNames.keys()].filter((harnessId) => !skill.installs.some((install) => install.harnessId === harnessId));

  return (
    <div class="skill-installs">
      {skill.installs.length === 0 ? (
        <p class="quiet">Not linked into any harness.</p>
      ) : (
        <ul aria-label="Harnesses">
          {skill.installs.map((install) => (
            <li key={install.harnessId} class="skill-install">
              <span>{nameOf(install.harnessId)}</span>
              {install.state === "linked" ? (
                <>
                  <span class="badge">Linked</span>
                  <button
                    type="button"
                    class="quiet-button small"
                    disabled={action.busy}
                    onClick={() => change(() => api<SkillsListing>("DELETE", `${skillPath(skill)}/${encodeURIComponent(install.harnessId)}`))}
                  >
                    Remove link<span class="visually-hidden"> from {nameOf(install.harnessId)}</span>
                  </button>
                </>
              ) : (
                <span class="badge conflict">Has its own</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {elsewhere.length > 0 && (
        <InstallForm
          harnessIds={elsewhere}
          nameOf={nameOf}
          busy={action.busy}
          onInstall={(harnessIds) => change(() => api<SkillsListing>("POST", skillPath(skill), { harnessIds }))}
        />
      )}
    </div>
  );
}

interface InstallFormProps {
  harnessIds: string[];
  nameOf: (harnessId: string) => string;
  busy: boolean;
  onInstall: (harnessIds: string[]) => Promise<boolean>;
}

/** Harnesses the skill is not in yet, to tick and link it into at once. */
function InstallForm({ harnessIds, nameOf, busy, onInstall }: InstallFormProps) {
  const [chosen, setChosen] = useState<string[]>([]);
  const wanted = chosen.filter((harnessId) => harnessIds.includes(harnessId));
  const toggle = (harnessId: string, on: boolean) => setChosen((current) => (on ? [...current, harnessId] : current.filter((each) => each !== harnessId)));

  return (
    <form
      class="skill-install-form"
      onSubmit={async (event) => {
        event.preventDefault();
        if (await onInstall(wanted)) setChosen([]);
      }}
    >
      <fieldset>
        <legend>Install into</legend>
        {harnessIds.map((harnessId) => (
          <label key={harnessId} class="check">
            <input type="checkbox" checked={wanted.includes(harnessId)} onChange={(event) => toggle(harnessId, event.currentTarget.checked)} />
            {nameOf(harnessId)}
          </label>
        ))}
      </fieldset>
      <button type="submit" class="small" disabled={busy || wanted.length === 0}>
        Install
      </button>
    </form>
  );
}
