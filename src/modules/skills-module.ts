import { skillFolders } from "../harness/harness-user-files.ts";
import { skillRoutes } from "../http/routes/skill-routes.ts";
import { SkillEvents } from "../schemas/skills.ts";
import { SkillsService } from "../skills/skills-service.ts";
import { harnessesModule } from "./harnesses-module.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

/** Skills: each harness's skill folder, and global skills kept once and linked into every harness. */
export const skillsModule = defineModule({
  name: "skills",
  features: MODULE_FEATURES.skills,
  eventKinds: SkillEvents,
  create: ({ store, logger, paths, modules }) => {
    const { events } = modules.get(coreModule);
    const { harnesses } = modules.get(harnessesModule);
    const skills = new SkillsService({ canonicalDir: paths.skills, folders: () => skillFolders(harnesses.installed()), store, events, logger });
    return { routes: skillRoutes(skills) };
  },
});
