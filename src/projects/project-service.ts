import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, statSync, readdirSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import type { Store } from "../store/database.ts";
import { KeptPages, type PageAtCursor } from "../store/page-cursor.ts";
import type { ProjectRepository, StoredLocation, StoredProject } from "../store/project-repository.ts";
import type { ProjectEvents } from "../schemas/projects.ts";
import type { EventLog } from "../events/event-log.ts";
import type { Logger } from "../logging/logger.ts";
import type { CloneProjectBody, CreateProjectBody, Project, ProjectLocation, RunLocation, UpdateProjectBody, WorktreeBase } from "../schemas/projects.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import { workTreeFacts } from "../git/repository-info.ts";
import { checkCloneUrl, redactCredentials, repoKeyOf, repoNameOf } from "./repo-url.ts";
import { gitClone, type CloneProgress } from "./git-clone.ts";
import { firstFree, slugify } from "./safe-names.ts";
import { effectiveWorktreeBase } from "./worktree-base.ts";

export interface ProjectServiceDeps {
  store: Store;
  projects: ProjectRepository;
  events: EventLog<typeof ProjectEvents>;
  logger: Logger;
  serverId: string;
  /** The data dir's `projects/` folder, where clones and scratch folders go. */
  projectsDir: string;
  /** Removes a project's worktrees before the project goes (the worktree service). */
  removeWorktrees: (projectId: string) => Promise<void>;
  now?: () => Date;
  cloneTimeoutMs?: number;
  /** A clone reports progress events only once it has run this long, then at most this often. */
  progressIntervalMs?: number;
}

const CLONE_IN_PROGRESS_PREFIX = ".clone-";

interface Detected {
  isGitRepository: boolean;
  repoUrl: string | null;
  repoKey: string | null;
  remote: string | null;
  branch: string | null;
}

async function detectRepository(folder: string): Promise<Detected> {
  const facts = await workTreeFacts(folder);
  if (!facts) return { isGitRepository: false, repoUrl: null, repoKey: null, remote: null, branch: null };
  const { origin } = facts;
  let repoKey: string | null = null;
  if (origin) {
    try {
      repoKey = repoKeyOf(origin);
    } catch {
      repoKey = null; // an origin we cannot parse still makes a usable project
    }
  }
  return {
    isGitRepository: true,
    // A checkout may keep a token in its origin URL; Atrium shows and stores the URL without it.
    repoUrl: origin ? redactCredentials(origin) : null,
    repoKey,
    remote: origin ? "origin" : "",
    branch: facts.defaultBranch ?? null,
  };
}

/** An existing folder, by its real path (symlinks resolved), or a 400 naming what is wrong. */
function existingFolder(folderPath: string): string {
  if (!isAbsolute(folderPath)) throw new InvalidInputError(`folderPath must be an absolute path, not "${folderPath}"`);
  if (!existsSync(folderPath)) throw new InvalidInputError(`folderPath ${folderPath} does not exist`);
  if (!statSync(folderPath).isDirectory()) throw new InvalidInputError(`folderPath ${folderPath} is not a folder`);
  return realpathSync(folderPath);
}

/**
 * Projects and their locations. A project made from a folder the user brought never has that folder
 * removed; clones and scratch folders are the server's own and go with the project.
 */
export class ProjectService {
  private readonly deletionSteps: Array<(projectId: string) => Promise<void>> = [];
  private readonly cloning = new Set<string>();
  private readonly listed: KeptPages;
  private readonly now: () => Date;

  constructor(private readonly deps: ProjectServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.listed = new KeptPages(() => deps.events.cursor());
  }

  /** Changes with every write to projects or their locations: what a page read from them is kept by. */
  get revision(): number {
    return this.deps.projects.revision;
  }

  /** A page of projects, oldest first, each with its locations; kept until a project or location changes. */
  list(limit: number, cursor?: string, q?: string): PageAtCursor {
    return this.listed.get(JSON.stringify([limit, cursor, q]), this.revision, () => {
      const read = this.deps.projects.list(limit, cursor, q);
      const locations = new Map<string, StoredLocation[]>();
      for (const location of this.deps.projects.locationsOfProjects(read.items.map((project) => project.id))) {
        const list = locations.get(location.projectId) ?? [];
        list.push(location);
        locations.set(location.projectId, list);
      }
      return { items: read.items.map((project) => this.toProject(project, locations.get(project.id) ?? [])), next: read.next };
    });
  }

  get(id: string): Project {
    return this.toProject(this.stored(id), this.deps.projects.locationsOf(id));
  }

  /** This machine's project that is another machine's `id`: the same id, else the same repository. */
  counterpart(id: string, repoKey: string | null): Project | undefined {
    const stored = this.deps.projects.get(id) ?? (repoKey === null ? undefined : this.deps.projects.findByRepoKey(repoKey));
    return stored && this.toProject(stored, this.deps.projects.locationsOf(stored.id));
  }

  async create(body: CreateProjectBody): Promise<Project> {
    if (body.isScratch) {
      if (body.folderPath !== undefined) throw new InvalidInputError("a scratch project gets a folder of its own; leave folderPath out");
      return this.createScratch(body.name ?? null);
    }
    if (body.folderPath === undefined) throw new InvalidInputError('body field "folderPath" is required unless isScratch is true');
    const folder = existingFolder(body.folderPath);
    this.refuseKnownFolder(folder);
    const detected = await detectRepository(folder);
    if (detected.repoKey) this.refuseKnownRepo(detected.repoKey);
    return this.insertProject({
      id: newId("prj"),
      customName: body.name ?? null,
      defaultName: basename(folder),
      detected,
      folder,
      createdByServer: false,
      isScratch: false,
    });
  }

  async cloneFromGit(body: CloneProjectBody): Promise<Project> {
    checkCloneUrl(body.url);
    const repoKey = repoKeyOf(body.url);
    this.refuseKnownRepo(repoKey);
    if (body.id && this.deps.projects.get(body.id)) throw new ConflictError(`a project with id ${body.id} already exists`);
    if (this.cloning.has(repoKey)) throw new ConflictError(`${repoKey} is being cloned right now`);
    this.cloning.add(repoKey);
    const id = body.id ?? newId("prj");
    const temporary = join(this.deps.projectsDir, `${CLONE_IN_PROGRESS_PREFIX}${newId("tmp")}`);
    // Credentials in the URL serve the clone only: they are never stored, shown, logged or evented.
    const shownUrl = redactCredentials(body.url);
    try {
      const failure = await gitClone({
        url: body.url,
        destination: temporary,
        timeoutMs: this.deps.cloneTimeoutMs ?? 30 * 60_000,
        onProgress: this.progressReporter(id, shownUrl),
      });
      if (failure) throw new InvalidInputError(`could not clone ${shownUrl}: ${failure}`);
      const name = repoNameOf(repoKey);
      const folder = this.freeFolder(name);
      renameSync(temporary, folder);
      try {
        const detected = { ...(await detectRepository(folder)), repoUrl: shownUrl, repoKey };
        return this.insertProject({ id, customName: body.name ?? null, defaultName: name, detected, folder, createdByServer: true, isScratch: false });
      } catch (error) {
        rmSync(folder, { recursive: true, force: true });
        throw error;
      }
    } finally {
      rmSync(temporary, { recursive: true, force: true });
      this.cloning.delete(repoKey);
    }
  }

  update(id: string, body: UpdateProjectBody): Project {
    return this.deps.store.transaction(() => {
      const project = this.stored(id);
      const locations = this.deps.projects.locationsOf(id);
      const isGit = locations.some((location) => location.isGitRepository);
      if (body.worktreeBase && !isGit) throw new InvalidInputError(`project ${id} is not a git repository, so it has no worktreeBase`);
      if (body.defaultRunLocation === "worktree" && !isGit) {
        throw new InvalidInputError(`project ${id} is not a git repository, so its sessions cannot run in worktrees`);
      }
      const updated: StoredProject = {
        ...project,
        customName: body.name === undefined ? project.customName : body.name,
        customWorktreeRemote: body.worktreeBase === undefined ? project.customWorktreeRemote : (body.worktreeBase?.remote ?? null),
        customWorktreeBranch: body.worktreeBase === undefined ? project.customWorktreeBranch : (body.worktreeBase?.branch ?? null),
        defaultRunLocation: body.defaultRunLocation === undefined ? project.defaultRunLocation : body.defaultRunLocation,
        updatedAt: this.now().toISOString(),
      };
      this.deps.projects.update(updated);
      const result = this.toProject(updated, locations);
      this.deps.events.append("project.updated", id, { project: result });
      return result;
    });
  }

  /**
   * Adds what deleting a project must delete first, from a module built after this one (the sessions
   * module: the project's sessions, with everything recorded under them).
   */
  beforeDeleting(step: (projectId: string) => Promise<void>): void {
    this.deletionSteps.push(step);
  }

  async delete(id: string): Promise<Project> {
    this.stored(id);
    for (const step of this.deletionSteps) await step(id);
    await this.deps.removeWorktrees(id);
    const { project, owned } = this.deps.store.transaction(() => {
      // Read inside the transaction: the project may have changed while its worktrees went.
      const deleted = this.get(id);
      const serverMade = this.deps.projects.locationsOf(id).filter((location) => location.createdByServer);
      this.deps.projects.delete(id);
      this.deps.events.append("project.deleted", id, { project: deleted });
      return { project: deleted, owned: serverMade };
    });
    for (const location of owned) rmSync(location.folderPath, { recursive: true, force: true });
    return project;
  }

  /**
   * Adds a second checkout of the same project. A folder of another repository is refused; a project
   * that had no repository adopts the folder's, unless another project already has it.
   */
  async addLocation(id: string, folderPath: string): Promise<Project> {
    this.stored(id);
    const folder = existingFolder(folderPath);
    this.refuseKnownFolder(folder);
    const detected = await detectRepository(folder);
    return this.deps.store.transaction(() => {
      // Checked again here: the awaits above leave room for a concurrent request.
      const project = this.stored(id);
      this.refuseKnownFolder(folder);
      if (project.repoKey !== null && detected.repoKey !== project.repoKey) {
        throw new InvalidInputError(`${folder} is not a checkout of ${project.repoKey}`);
      }
      if (project.repoKey === null && detected.repoKey !== null && detected.repoUrl !== null) {
        this.refuseKnownRepo(detected.repoKey);
        this.deps.projects.adoptRepository(
          id,
          { repoUrl: detected.repoUrl, repoKey: detected.repoKey, detectedRemote: detected.remote, detectedBranch: detected.branch },
          this.now().toISOString(),
        );
      }
      this.deps.projects.insertLocation(this.location(id, folder, detected.isGitRepository, false));
      return this.appendUpdated(id);
    });
  }

  removeLocation(id: string, locationId: string): Project {
    return this.deps.store.transaction(() => {
      const locations = this.deps.projects.locationsOf(this.stored(id).id);
      const location = locations.find((candidate) => candidate.id === locationId);
      if (!location) throw new NotFoundError(`project ${id} has no location ${locationId}`);
      if (locations.length === 1) throw new ConflictError(`location ${locationId} is the project's last; delete the project instead`);
      this.deps.projects.deleteLocation(locationId);
      return this.appendUpdated(id);
    });
  }

  /** Removes clones a crash left half-done; run at start-up. */
  removeAbandonedClones(): void {
    if (!existsSync(this.deps.projectsDir)) return;
    for (const entry of readdirSync(this.deps.projectsDir)) {
      if (!entry.startsWith(CLONE_IN_PROGRESS_PREFIX)) continue;
      rmSync(join(this.deps.projectsDir, entry), { recursive: true, force: true });
      this.deps.logger.info("removed an abandoned clone", { folder: entry });
    }
  }

  private createScratch(name: string | null): Project {
    const folder = this.freeFolder(`scratch-${newId("s").slice(2, 8)}`);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const detected: Detected = { isGitRepository: false, repoUrl: null, repoKey: null, remote: null, branch: null };
    try {
      return this.insertProject({ id: newId("prj"), customName: name, defaultName: "Scratch", detected, folder, createdByServer: true, isScratch: true });
    } catch (error) {
      rmSync(folder, { recursive: true, force: true });
      throw error;
    }
  }

  /** A folder in `projects/` named after `name` that does not exist yet. */
  private freeFolder(name: string): string {
    const dir = this.deps.projectsDir;
    return join(
      dir,
      firstFree(slugify(name, "project"), (candidate) => existsSync(join(dir, candidate))),
    );
  }

  private insertProject(input: {
    id: string;
    customName: string | null;
    defaultName: string;
    detected: Detected;
    folder: string;
    createdByServer: boolean;
    isScratch: boolean;
  }): Project {
    const createdAt = this.now().toISOString();
    const stored: StoredProject = {
      id: input.id,
      customName: input.customName,
      defaultName: input.defaultName,
      createdAt,
      repoUrl: input.detected.repoUrl,
      repoKey: input.detected.repoKey,
      customWorktreeRemote: null,
      customWorktreeBranch: null,
      detectedRemote: input.detected.remote,
      detectedBranch: input.detected.branch,
      defaultRunLocation: null,
      isScratch: input.isScratch,
      updatedAt: createdAt,
    };
    const location = this.location(input.id, input.folder, input.detected.isGitRepository, input.createdByServer);
    return this.deps.store.transaction(() => {
      // Checked again inside the transaction: another request may have won the race since.
      if (stored.repoKey) this.refuseKnownRepo(stored.repoKey);
      this.refuseKnownFolder(input.folder);
      if (this.deps.projects.get(stored.id)) throw new ConflictError(`a project with id ${stored.id} already exists`);
      this.deps.projects.insert(stored);
      this.deps.projects.insertLocation(location);
      const project = this.toProject(stored, [location]);
      this.deps.events.append("project.created", project.id, { project });
      return project;
    });
  }

  private location(projectId: string, folderPath: string, isGitRepository: boolean, createdByServer: boolean): StoredLocation {
    return {
      id: newId("loc"),
      projectId,
      serverId: this.deps.serverId,
      folderPath,
      createdAt: this.now().toISOString(),
      isGitRepository,
      createdByServer,
    };
  }

  private appendUpdated(id: string): Project {
    const project = this.get(id);
    this.deps.events.append("project.updated", id, { project });
    return project;
  }

  private progressReporter(projectId: string, url: string): (progress: CloneProgress) => void {
    const interval = this.deps.progressIntervalMs ?? 500;
    const started = Date.now();
    let lastReport = 0;
    return (progress) => {
      const now = Date.now();
      if (now - started < interval * 2 || now - lastReport < interval) return;
      lastReport = now;
      // A subject of its own: a clone that fails leaves no events on a project that never existed.
      this.deps.store.transaction(() => this.deps.events.append("project.clone.progress", `clone:${projectId}`, { projectId, url, ...progress }));
    };
  }

  private stored(id: string): StoredProject {
    const project = this.deps.projects.get(id);
    if (!project) throw new NotFoundError(`no project has id ${id}`);
    return project;
  }

  private refuseKnownRepo(repoKey: string): void {
    const existing = this.deps.projects.findByRepoKey(repoKey);
    if (existing) throw new ConflictError(`${repoKey} is already project ${existing.id}`);
  }

  private refuseKnownFolder(folder: string): void {
    const existing = this.deps.projects.findLocationByFolder(this.deps.serverId, folder);
    if (existing) throw new ConflictError(`${folder} is already a location of project ${existing.projectId}`);
  }

  private toProject(project: StoredProject, locations: StoredLocation[]): Project {
    const isGit = locations.some((location) => location.isGitRepository);
    const worktreeBase: WorktreeBase | null = isGit ? effectiveWorktreeBase(project) : null;
    return {
      id: project.id,
      name: project.customName ?? project.defaultName,
      origin: "service",
      createdAt: project.createdAt,
      locations: locations.map(
        (location): ProjectLocation => ({
          id: location.id,
          projectId: location.projectId,
          serverId: location.serverId,
          folderPath: location.folderPath,
          createdAt: location.createdAt,
          isGitRepository: location.isGitRepository,
        }),
      ),
      // Rows written before credentials were stripped on the way in may still hold them.
      repoUrl: project.repoUrl === null ? null : redactCredentials(project.repoUrl),
      repoKey: project.repoKey,
      worktreeBase,
      defaultRunLocation: (project.defaultRunLocation as RunLocation | null) ?? "projectDirectory",
      isScratch: project.isScratch,
    };
  }
}
