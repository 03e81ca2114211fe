import type { Static } from "@sinclair/typebox";
import type { Store } from "../store/database.ts";
import type { SessionRepository, StoredSession } from "../store/session-repository.ts";
import type { ConversationRepository } from "../store/conversation-repository.ts";
import type { TranscriptRepository } from "../store/transcript-repository.ts";
import type { HarnessService } from "../harness/harness-service.ts";
import type { ProjectService } from "../projects/project-service.ts";
import type { WorktreeService } from "../projects/worktree-service.ts";
import type { ConversationItem, Session } from "../schemas/sessions.ts";
import type { ForkSessionBody } from "../schemas/session-requests.ts";
import { ConflictError, InvalidInputError } from "../errors.ts";
import { gitOutput } from "../git/git-runner.ts";
import { newId } from "../ids.ts";
import type { SessionRecords } from "./session-records.ts";
import { newStoredSession } from "./new-session.ts";

/** A reply's details are copied whole (its thoughts and tool calls); more than this many are not. */
const MAX_DETAILS = 10_000;

export interface SessionForkDeps {
  store: Store;
  sessions: SessionRepository;
  records: SessionRecords;
  conversation: ConversationRepository;
  transcript: TranscriptRepository;
  harnesses: HarnessService;
  projects: ProjectService;
  worktrees: WorktreeService;
  /** Refuses (409) a harness that cannot run sessions now. */
  checkCanRun: (harnessId: string) => void;
}

/** Where the fork works, and the worktree it owns if one was made for it. */
interface ForkFolder {
  cwd: string;
  workspaceId: string | null;
  worktreeId: string | null;
  worktreeName: string | null;
}

/**
 * Forks a session at a conversation item: a new session (its `parentSessionId` the source) holding
 * copies of the items up to and including that one, whose agent gets them by `session/fork` (the whole
 * conversation, same harness, an agent that offers it) or else by the history handoff with its first
 * prompt. Another harness continues the conversation with another agent. The source is not changed.
 */
export class SessionForks {
  constructor(private readonly deps: SessionForkDeps) {}

  async fork(sourceId: string, body: Static<typeof ForkSessionBody>): Promise<Session> {
    const source = this.deps.records.get(sourceId);
    const items = this.deps.conversation.all(sourceId);
    const kept = this.keptItems(source, items, body.itemId ?? null);
    const harnessId = body.harnessId ?? source.harnessId;
    const sameHarness = harnessId === source.harnessId;
    this.deps.checkCanRun(harnessId);
    const account = sameHarness ? source.harnessAccountId : this.deps.harnesses.launchSpec(harnessId, null).accountId;
    const id = newId("ses");
    const folder = await this.folder(source, id, body.runLocation ?? null);
    const session = newStoredSession({
      id,
      projectId: source.projectId,
      harnessId,
      harnessAccountId: account,
      title: source.title,
      titleSource: source.titleSource,
      ...folder,
      // The source's choices go with it on the same agent; another agent has its own.
      selections: sameHarness ? { ...source.configSelections, ...source.unavailableConfigSelections } : {},
      parentSessionId: source.id,
      labels: source.labels,
      now: this.deps.records.timestamp(),
    });
    session.historyHandoff = kept.length > 0;
    // The agent's own fork carries the whole conversation, when the source's agent session has it all.
    const whole = kept.length === items.length;
    session.forkOf = sameHarness && whole && source.agentSessionId && !source.historyHandoff ? source.agentSessionId : null;
    return this.deps.store.transaction(() => {
      this.deps.sessions.save(session);
      for (const item of kept) this.copy(item, session.id);
      const view = this.deps.records.view(session);
      this.deps.records.emit(id, "session.created", { session: view });
      return view;
    });
  }

  /** The items the fork keeps: all, or those up to and including `itemId`; a reply still being written is refused. */
  private keptItems(source: StoredSession, items: ConversationItem[], itemId: string | null): ConversationItem[] {
    const end = itemId === null ? items.length : items.findIndex((item) => item.id === itemId) + 1;
    if (itemId !== null && end === 0) throw new InvalidInputError(`itemId: session ${source.id} has no conversation item ${itemId}`);
    const kept = items.slice(0, end);
    if (kept.some((item) => item.isGenerating)) {
      throw new ConflictError(`a reply of session ${source.id} is still being written: fork once it has ended, or at an earlier message`);
    }
    return kept;
  }

  /**
   * The fork's folder: the source's own (its worktree is shared, and stays the source's) unless
   * `runLocation` says the project's folder or a new worktree from the commit the source works on.
   */
  private async folder(source: StoredSession, id: string, runLocation: "projectDirectory" | "worktree" | null): Promise<ForkFolder> {
    if (runLocation === null) return { cwd: source.cwd, workspaceId: source.workspaceId, worktreeId: null, worktreeName: source.worktreeName };
    const location = this.deps.projects.get(source.projectId).locations[0];
    if (!location) throw new ConflictError(`project ${source.projectId} has no folder on this machine`);
    if (runLocation === "projectDirectory") return { cwd: location.folderPath, workspaceId: location.id, worktreeId: null, worktreeName: null };
    const commit = await gitOutput(["rev-parse", "--verify", "HEAD"], { cwd: source.cwd });
    if (!commit)
      throw new ConflictError(`session ${source.id} works in ${source.cwd}, which is not a git repository with a commit: a worktree cannot be made from it`);
    const made = await this.deps.worktrees.create({ projectId: source.projectId, sessionId: id, startPoint: commit.trim() });
    return { cwd: made.path, workspaceId: location.id, worktreeId: made.id, worktreeName: made.name };
  }

  /** A copy of an item (its text in its row) and its details, under a new id in the fork. */
  private copy(item: ConversationItem, forkId: string): void {
    const copyId = newId("msg");
    this.deps.conversation.append(forkId, { ...item, id: copyId });
    for (const entry of this.deps.transcript.after(item.id, 0, MAX_DETAILS)) this.deps.transcript.put(forkId, copyId, entry.key, entry.payload);
  }
}
