import { useState } from "preact/hooks";
import type { ImportedSkills, SkillsListing } from "../../../schemas/skills.ts";
import { GlobalSkillCard } from "./global-skill-card.tsx";
import { HarnessSkillSetCard } from "./harness-skill-set.tsx";
import { ImportSkillsForm } from "./import-skills-form.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import { useSkills } from "./use-skills.ts";
import { PageHeading } from "../shell/page-heading.tsx";

interface SectionProps {
  listing: SkillsListing;
  harnessNames: Map<string, string>;
  onChanged: (listing: SkillsListing) => void;
}

/** The global skills, each with the harnesses it is linked into. */
function GlobalSkills({ listing, harnessNames, onChanged }: SectionProps) {
  return (
    <section class="skills-section" aria-labelledby="global-skills">
      <h3 id="global-skills">Global skills</h3>
      <p class="quiet">
        Kept once in <span class="skill-path">{listing.canonicalDir}</span> and linked into each harness's skills folder.
      </p>
      {listing.global.length === 0 ? (
        <p class="quiet">No global skills yet: make a harness's skill global, or import some.</p>
      ) : (
        <ul class="cards skill-cards">
          {listing.global.map((skill) => (
            <GlobalSkillCard key={skill.directoryName} skill={skill} harnessNames={harnessNames} onChanged={onChanged} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** Each harness's own skills folder, read as it is now. */
function HarnessSkillSets({ listing, harnessNames, onChanged }: SectionProps) {
  const globalNames = new Set(listing.global.map((skill) => skill.directoryName));
  const nameOf = (harnessId: string) => harnessNames.get(harnessId) ?? harnessId;
  return (
    <section class="skills-section" aria-labelledby="harness-skills">
      <h3 id="harness-skills">By harness</h3>
      {listing.harnesses.length === 0 ? (
        <p class="quiet">No harness that reads skills is installed.</p>
      ) : (
        <ul class="cards skill-cards">
          {listing.harnesses.map((set) => (
            <HarnessSkillSetCard key={set.harnessId} set={set} globalNames={globalNames} nameOf={nameOf} onChanged={onChanged} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** Skills: the global ones Atrium links into every harness, each harness's own, and importing more; followed live. */
export function SkillsPage() {
  const { listing, error, show, reload } = useSkills();
  const reread = useAction();
  const [importOpen, setImportOpen] = useState(false);
  const [imported, setImported] = useState<string | null>(null);

  const afterImport = (result: ImportedSkills) => {
    setImported(`Imported ${result.skills.map((skill) => skill.name).join(", ")}.`);
    setImportOpen(false);
    void reread.run(reload);
  };
  const harnessNames = new Map(listing?.harnesses.map((set) => [set.harnessId, set.harnessName]));

  return (
    <section class="skills-page">
      <header class="page-header">
        <PageHeading text="Skills" />
        <button type="button" class="quiet-button" disabled={reread.busy} onClick={() => reread.run(reload)}>
          Read folders again
        </button>
      </header>
      <div class="row-actions">
        <button type="button" class="quiet-button" aria-expanded={importOpen} onClick={() => setImportOpen(!importOpen)}>
          Import skills
        </button>
      </div>
      {importOpen && <ImportSkillsForm onImported={afterImport} />}
      <p role="status" class="quiet">
        {imported}
      </p>
      <Alert error={error ?? reread.error} />
      {listing === null ? (
        !error && <p class="quiet">Loading…</p>
      ) : (
        <>
          <GlobalSkills listing={listing} harnessNames={harnessNames} onChanged={show} />
          <HarnessSkillSets listing={listing} harnessNames={harnessNames} onChanged={show} />
        </>
      )}
    </section>
  );
}
