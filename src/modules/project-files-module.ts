import { projectFileRoutes } from "../http/routes/project-file-routes.ts";
import { defaultFileLimits, FileContent, type FileLimits } from "../project-files/file-content.ts";
import { FileEntries } from "../project-files/file-entries.ts";
import { defaultFileNameIndexOptions, FileNameIndex, type FileNameIndexOptions } from "../project-files/file-name-index.ts";
import { FileSearch } from "../project-files/file-search.ts";
import { ProjectFiles } from "../project-files/project-files.ts";
import { ProjectFolders } from "../projects/project-folders.ts";
import { ProjectFileEvents } from "../schemas/project-files.ts";
import { SessionRepository } from "../store/session-repository.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { projectsModule } from "./projects-module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

/** What tests replace: where ripgrep is looked for, the size limits, how long a kept file list answers. */
export interface ProjectFilesTuning {
  /** The PATH ripgrep is looked for on (the server's own by default). */
  searchPath?: string;
  limits?: Partial<FileLimits>;
  nameIndex?: Partial<FileNameIndexOptions>;
}

/** A project's files: browsed, searched, read and edited inside the project's folders (docs/api.md, "Files"). */
export const projectFilesModule = defineModule({
  name: "projectFiles",
  features: MODULE_FEATURES.projectFiles,
  eventKinds: ProjectFileEvents,
  create: ({ store, modules }, tuning: ProjectFilesTuning | undefined) => {
    const { events } = modules.get(coreModule);
    const { projects, worktrees } = modules.get(projectsModule);
    const limits = { ...defaultFileLimits, ...tuning?.limits };
    const names = new FileNameIndex({ ...defaultFileNameIndexOptions, ...tuning?.nameIndex });
    const files = new ProjectFiles({
      folders: new ProjectFolders({ projects, worktrees, sessions: new SessionRepository(store) }),
      store,
      events,
      entries: new FileEntries(),
      content: new FileContent(limits),
      search: new FileSearch({ names, ...(tuning?.searchPath === undefined ? {} : { path: tuning.searchPath }) }),
      names,
    });
    return { files, routes: projectFileRoutes(files, limits) };
  },
});
