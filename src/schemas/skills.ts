import { Type, type Static } from "@sinclair/typebox";
import { Nullable } from "./common.ts";

/** A folder name inside a skills folder: no separators, no `..`, no leading dot, no NUL. */
export const SkillDirectoryName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: "^(?!\\.)[^/\\\\\\u0000]+$",
  description: "A folder name: no `/`, no leading dot (so no `..`), no NUL.",
});

const skillFields = {
  name: Type.String({ description: "`name` from SKILL.md's front matter; the folder's name when it has none." }),
  directoryName: Type.String(),
  description: Type.String({ description: "`description` from the front matter; empty when it has none." }),
  path: Type.String({ description: "The skill's folder on this machine." }),
  invalid: Type.Boolean({ description: "SKILL.md is missing, unreadable, has no front matter or no name, or a link loops." }),
};

export const Skill = Type.Object(skillFields, { $id: "Skill" });
export type Skill = Static<typeof Skill>;

export const SkillInstallState = Type.Union([Type.Literal("linked"), Type.Literal("conflict")], {
  description: "`linked`: the harness's folder links to the global copy. `conflict`: the harness holds its own skill of that name, left as it is.",
});

export const GlobalSkill = Type.Object(
  { ...skillFields, installs: Type.Array(Type.Object({ harnessId: Type.String(), state: SkillInstallState })) },
  { $id: "GlobalSkill" },
);
export type GlobalSkill = Static<typeof GlobalSkill>;

export const SkillClassification = Type.Union([Type.Literal("independent"), Type.Literal("linked"), Type.Literal("duplicate"), Type.Literal("broken-link")], {
  description:
    "`independent`: a folder of the harness's own. `linked`: a link to the global copy. `duplicate`: same name as a global skill or " +
    "another harness's, different content (`duplicateOf` names it). `broken-link`: a link to nothing.",
});

export const HarnessSkill = Type.Object(
  {
    harnessId: Type.String(),
    ...skillFields,
    classification: SkillClassification,
    duplicateOf: Nullable(Type.String({ description: "`global`, or the id of the harness whose skill of that name differs." })),
  },
  { $id: "HarnessSkill" },
);
export type HarnessSkill = Static<typeof HarnessSkill>;

export const HarnessSkillSet = Type.Object(
  { harnessId: Type.String(), harnessName: Type.String(), harnessSymbol: Type.String(), skillsDir: Type.String(), skills: Type.Array(HarnessSkill) },
  { $id: "HarnessSkillSet" },
);
export type HarnessSkillSet = Static<typeof HarnessSkillSet>;

export const SkillsListing = Type.Object(
  {
    canonicalDir: Type.String({ description: "Where Atrium keeps the one copy of each global skill." }),
    global: Type.Array(GlobalSkill),
    harnesses: Type.Array(HarnessSkillSet),
  },
  { $id: "SkillsListing" },
);
export type SkillsListing = Static<typeof SkillsListing>;

export const MakeGlobalBody = Type.Object({ harnessId: Type.String({ minLength: 1 }), directoryName: SkillDirectoryName });
export const InstallSkillBody = Type.Object({ harnessIds: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 50 }) });

export const ImportSkillsBody = Type.Object({
  source: Type.String({
    minLength: 1,
    maxLength: 4096,
    description: "A git URL (https, ssh, git, file), optionally ending `/tree/<ref>/<folder>`, or an absolute local folder.",
  }),
  skillNames: Type.Optional(
    Nullable(Type.Array(Type.String({ minLength: 1 }), { maxItems: 500, description: "Only these (by name or folder name); all when absent." })),
  ),
});

export const ImportedSkills = Type.Object(
  { dir: Type.String({ description: "The canonical dir they were imported into." }), skills: Type.Array(Skill) },
  { $id: "ImportedSkills" },
);
export type ImportedSkills = Static<typeof ImportedSkills>;

/** The events the skills module publishes, with their payloads. */
export const SkillEvents = {
  /** Something about skills changed (a skill made global, linked, unlinked or removed): read GET /v1/skills again. */
  "skills.changed": Type.Object({ skills: Type.Array(Type.String(), { description: "The global skills' folder names the change touched." }) }),
};
