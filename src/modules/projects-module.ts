import { LocationParams, projectRoutes } from "../http/routes/project-routes.ts";
import { projectChangeRoutes, WorktreeParams } from "../http/routes/change-routes.ts";
import { gitRoutes } from "../http/routes/git-routes.ts";
import { Discards } from "../git/discards.ts";
import { GitReads } from "../git/git-reads.ts";
import { PullRequests } from "../git/pull-requests.ts";
import { GitHubToken } from "../git/github-token.ts";
import { gitHubRoutes } from "../http/routes/github-routes.ts";
import { join } from "node:path";
import { GitChangedNotices } from "../git/git-changed.ts";
import { GitEvents } from "../schemas/git.ts";
import { WorkingTreeEdits } from "../git/working-tree-edits.ts";
import { ProjectChanges } from "../projects/project-changes.ts";
import { WorkingTreeChanges } from "../git/working-tree-changes.ts";
import { ProjectService } from "../projects/project-service.ts";
import { WorktreeService } from "../projects/worktree-service.ts";
import { ProjectEvents } from "../schemas/projects.ts";
import { ProjectRepository } from "../store/project-repository.ts";
import { WorktreeRepository } from "../store/worktree-repository.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

export interface ProjectsTuning {
  /** The environment `gh` is looked for in (PATH) and runs with (HOME); the server's own by default. */
  env?: Record<string, string | undefined>;
  /** GitHub's REST API, for pull requests without `gh`; https://api.github.com by default. */
  gitHubApiUrl?: string;
}

/** Projects (folders, clones, scratch) and the worktrees sessions run in. */
export const projectsModule = defineModule({
  name: "projects",
  features: MODULE_FEATURES.projects,
  eventKinds: { ...ProjectEvents, ...GitEvents },
  create: ({ store, logger, identity, paths, clock, modules }, tuning: ProjectsTuning | undefined) => {
    const { events } = modules.get(coreModule);
    const repository = new ProjectRepository(store);
    const worktrees = new WorktreeService({
      store,
      worktrees: new WorktreeRepository(store),
      projects: repository,
      serverId: identity.serverId,
      worktreesDir: paths.worktrees,
      logger,
    });
    const projects = new ProjectService({
      store,
      projects: repository,
      events,
      logger,
      serverId: identity.serverId,
      projectsDir: paths.projects,
      removeWorktrees: (projectId) => worktrees.removeAllOf(projectId),
    });
    // Before any request: a clone a killed server left half-done is nobody's.
    projects.removeAbandonedClones();
    const changes = new WorkingTreeChanges();
    const projectChanges = new ProjectChanges({ projects, worktrees, changes });
    const notices = new GitChangedNotices(store, events, clock);
    const edits = new WorkingTreeEdits(changes, new Discards(clock), clock, notices);
    const reads = new GitReads(changes);
    const gitHubToken = new GitHubToken(join(paths.root, "github-token"));
    const pullRequests = new PullRequests({
      changes,
      env: tuning?.env ?? process.env,
      token: gitHubToken,
      apiUrl: tuning?.gitHubApiUrl ?? "https://api.github.com",
    });
    const routes = [
      ...projectRoutes(projects, worktrees),
      ...projectChangeRoutes(projectChanges),
      ...gitHubRoutes(gitHubToken),
      ...gitRoutes(
        {
          path: "/v1/projects/:id/locations/:locationId",
          noun: "location",
          tag: "projects",
          params: LocationParams,
          folder: (params) => projectChanges.locationFolder(params.id, params.locationId),
        },
        edits,
        reads,
        pullRequests,
      ),
      ...gitRoutes(
        {
          path: "/v1/projects/:id/worktrees/:worktreeId",
          noun: "worktree",
          tag: "projects",
          params: WorktreeParams,
          folder: (params) => projectChanges.worktreeFolder(params.id, params.worktreeId),
        },
        edits,
        reads,
        pullRequests,
      ),
    ];
    return { projects, worktrees, changes, edits, reads, pullRequests, routes };
  },
});
