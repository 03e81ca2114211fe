import { clientsModule } from "./clients-module.ts";
import { consoleModule } from "./console-module.ts";
import { filesModule } from "./files-module.ts";
import { machinesModule } from "./machines-module.ts";
import { harnessesModule } from "./harnesses-module.ts";
import { mcpsModule } from "./mcps-module.ts";
import { pluginsModule } from "./plugins-module.ts";
import { pushModule } from "./push-module.ts";
import type { AtriumModule, ModuleDefinition } from "./module.ts";
import { projectFilesModule } from "./project-files-module.ts";
import { projectsModule } from "./projects-module.ts";
import { sessionsModule } from "./sessions-module.ts";
import { skillsModule } from "./skills-module.ts";
import { syncModule } from "./sync-module.ts";
import { terminalsModule } from "./terminals-module.ts";
import { updatesModule } from "./updates-module.ts";

/**
 * Every resource the server serves, built in this order (a module after those it uses) and stopped
 * in the reverse. Adding a resource is adding its line here; see docs/architecture.md.
 */
export const MODULES = [
  syncModule,
  projectsModule,
  filesModule,
  harnessesModule,
  skillsModule,
  mcpsModule,
  pluginsModule,
  sessionsModule,
  updatesModule,
  clientsModule,
  pushModule,
  machinesModule,
  terminalsModule,
  projectFilesModule,
  consoleModule,
] as const;

/** What tests may replace, per module, by its name. */
export type ModuleTuning = {
  [Definition in (typeof MODULES)[number] as Definition["name"]]?: Definition extends ModuleDefinition<string, AtriumModule, infer Tuning> ? Tuning : never;
};
