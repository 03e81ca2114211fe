import { Type } from "@sinclair/typebox";
import { ImportedSkills, ImportSkillsBody, InstallSkillBody, MakeGlobalBody, SkillDirectoryName, SkillsListing } from "../../schemas/skills.ts";
import type { SkillsService } from "../../skills/skills-service.ts";
import { defineRoute } from "../route.ts";

const NameParams = Type.Object({ name: SkillDirectoryName });
const InstallParams = Type.Object({ name: SkillDirectoryName, harnessId: Type.String({ minLength: 1 }) });

export function skillRoutes(skills: SkillsService) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/skills",
      tag: "skills",
      summary: "Global skills and every harness's skill folder, read as they are now",
      response: SkillsListing,
      handler: () => skills.list(),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/skills/make-global",
      tag: "skills",
      summary: "Make a harness's skill global: moved into Atrium's skills folder and linked into every harness",
      description:
        "A harness whose folder already holds a skill of that name keeps its own (`installs[].state: conflict`). When a step fails, " +
        "what was done is undone and the answer is 409 with the reason.",
      body: MakeGlobalBody,
      response: SkillsListing,
      handler: ({ body }) => skills.makeGlobal(body.harnessId, body.directoryName),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/skills/import-remote",
      tag: "skills",
      summary: "Import skills from a git repository or a local folder into Atrium's skills folder",
      description:
        "Every folder with a SKILL.md (up to 4 levels down) is imported, or only those `skillNames` names (400 listing what the source " +
        "has when one is unknown). Nothing from the source is run; links inside a skill are left out. 413 past 2,000 files or 20 MiB; " +
        "409 when a global skill of the same name exists (nothing is imported). Imported skills are not linked into harnesses.",
      body: ImportSkillsBody,
      response: ImportedSkills,
      handler: ({ body }) => skills.importRemote(body.source, body.skillNames),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/skills/:name/install",
      tag: "skills",
      summary: "Link a global skill into these harnesses (409, nothing changed, when one holds its own of that name)",
      params: NameParams,
      body: InstallSkillBody,
      response: SkillsListing,
      handler: ({ params, body }) => skills.install(params.name, body.harnessIds),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/skills/:name/install/:harnessId",
      tag: "skills",
      summary: "Remove a global skill's link from one harness (never a folder of the harness's own)",
      params: InstallParams,
      response: SkillsListing,
      handler: ({ params }) => skills.uninstall(params.name, params.harnessId),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/skills/:name",
      tag: "skills",
      summary: "Remove a global skill and its links (folders the user made stay)",
      params: NameParams,
      response: SkillsListing,
      handler: ({ params }) => skills.remove(params.name),
    }),
  ];
}
