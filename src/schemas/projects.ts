import { Type, type Static } from "@sinclair/typebox";
import { PageQuery, SearchQuery, Timestamp } from "./common.ts";

export const RunLocation = Type.Union([Type.Literal("projectDirectory"), Type.Literal("worktree")], {
  description: "Where new sessions run: the project's folder, or a git worktree of their own.",
});
export type RunLocation = Static<typeof RunLocation>;

export const WorktreeBase = Type.Object(
  {
    // No leading "-": git would read the name as an option.
    remote: Type.String({ maxLength: 200, pattern: "^([A-Za-z0-9._][A-Za-z0-9._/-]*)?$", description: '"" means a local branch.' }),
    branch: Type.String({ minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9._][A-Za-z0-9._/-]*$" }),
  },
  { $id: "WorktreeBase", description: "What new worktrees branch from: `<remote>/<branch>`." },
);
export type WorktreeBase = Static<typeof WorktreeBase>;

export const ProjectLocation = Type.Object(
  {
    id: Type.String(),
    projectId: Type.String(),
    serverId: Type.String(),
    folderPath: Type.String(),
    createdAt: Timestamp,
    isGitRepository: Type.Boolean({ description: "Detected by asking git, never taken from input." }),
  },
  { $id: "ProjectLocation" },
);
export type ProjectLocation = Static<typeof ProjectLocation>;

export const Project = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    origin: Type.Literal("service", { description: "Created through this server." }),
    createdAt: Timestamp,
    locations: Type.Array(ProjectLocation),
    repoUrl: Type.Union([Type.String(), Type.Null()], { description: "The clone URL as given, or the folder's origin remote." }),
    repoKey: Type.Union([Type.String(), Type.Null()], { description: "The repository's identity, e.g. `github.com/a/b`." }),
    worktreeBase: Type.Union([WorktreeBase, Type.Null()], { description: "Null when the project is not a git repository." }),
    defaultRunLocation: RunLocation,
    isScratch: Type.Boolean(),
  },
  { $id: "Project" },
);
export type Project = Static<typeof Project>;

export const ProjectList = Type.Array(Project);

export const ProjectListQuery = Type.Object({ ...SearchQuery.properties, ...PageQuery.properties });

const ProjectName = Type.String({ minLength: 1, maxLength: 200 });

export const CreateProjectBody = Type.Object({
  folderPath: Type.Optional(Type.String({ minLength: 1, description: "An existing folder, absolute path. Required unless isScratch." })),
  name: Type.Optional(Type.Union([ProjectName, Type.Null()])),
  isScratch: Type.Optional(Type.Boolean({ description: "Give the project a fresh empty folder in the data dir." })),
});
export type CreateProjectBody = Static<typeof CreateProjectBody>;

export const CloneProjectBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000 }),
  id: Type.Optional(Type.Union([Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$", description: "Choose the project id." }), Type.Null()])),
  name: Type.Optional(Type.Union([ProjectName, Type.Null()])),
});
export type CloneProjectBody = Static<typeof CloneProjectBody>;

export const UpdateProjectBody = Type.Object({
  name: Type.Optional(Type.Union([ProjectName, Type.Null()], { description: "null resets to the default name." })),
  worktreeBase: Type.Optional(Type.Union([WorktreeBase, Type.Null()], { description: "null resets to the detected default." })),
  defaultRunLocation: Type.Optional(Type.Union([RunLocation, Type.Null()], { description: "null resets to projectDirectory." })),
});
export type UpdateProjectBody = Static<typeof UpdateProjectBody>;

export const AddLocationBody = Type.Object({
  folderPath: Type.String({ minLength: 1, description: "An existing folder, absolute path." }),
});

export const Worktree = Type.Object(
  {
    id: Type.String(),
    projectId: Type.String(),
    sessionId: Type.String(),
    name: Type.String(),
    branch: Type.String(),
    path: Type.String(),
    baseRef: Type.String({ description: "What the branch was created from, e.g. `origin/main`." }),
    createdAt: Timestamp,
  },
  { $id: "Worktree" },
);
export type Worktree = Static<typeof Worktree>;

const ProjectPayload = Type.Object({ project: Project });

/** The events the projects module publishes, with their payloads. */
export const ProjectEvents = {
  "project.created": ProjectPayload,
  "project.updated": ProjectPayload,
  "project.deleted": ProjectPayload,
  /** Subject `clone:<projectId>`. */
  "project.clone.progress": Type.Object({
    projectId: Type.String({ description: "The id the project will have once the clone is done." }),
    url: Type.String(),
    phase: Type.String({ description: "git's phase, e.g. `Receiving objects`." }),
    percent: Type.Integer({ minimum: 0, maximum: 100 }),
  }),
};
