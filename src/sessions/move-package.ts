import type { ConversationRepository } from "../store/conversation-repository.ts";
import type { PromptQueueRepository } from "../store/prompt-queue-repository.ts";
import type { SessionRepository, StoredSession } from "../store/session-repository.ts";
import type { TranscriptRepository } from "../store/transcript-repository.ts";
import type { Project } from "../schemas/projects.ts";
import type { MovePackage } from "../schemas/session-moves.ts";
import { ConflictError } from "../errors.ts";
import { packWorkingTree } from "../git/branch-transfer.ts";
import { gitOutput } from "../git/git-runner.ts";
import { newId } from "../ids.ts";
import { newStoredSession } from "./new-session.ts";

/** A reply's details are copied whole (its thoughts and tool calls); more than this many are not. */
const MAX_DETAILS = 10_000;

export interface MovePackageDeps {
  sessions: SessionRepository;
  conversation: ConversationRepository;
  transcript: TranscriptRepository;
  queue: PromptQueueRepository;
}

/** Where the arrived session works on the target: its new worktree, or the project's folder. */
export interface ArrivedFolder {
  /** The project here: the source's by id, or the one of the same repository. */
  projectId: string;
  cwd: string;
  workspaceId: string;
  worktreeId: string | null;
  worktreeName: string | null;
}

/** The session as its source sends it: its record's lasting parts, conversation, details, queue and working tree. */
export async function packSession(
  deps: MovePackageDeps,
  source: StoredSession,
  project: Project,
  ids: { moveId: string; sessionId: string },
): Promise<MovePackage> {
  const items = deps.conversation.all(source.id);
  if (items.some((item) => item.isGenerating)) throw new ConflictError(`a reply of session ${source.id} is still being written: move it once it has ended`);
  const isRepository = (await gitOutput(["rev-parse", "--verify", "--quiet", "HEAD"], { cwd: source.cwd })) !== undefined;
  return {
    ...ids,
    sourceSessionId: source.id,
    project: { id: project.id, name: project.name, repoKey: project.repoKey },
    session: {
      harnessId: source.harnessId,
      title: source.title,
      titleSource: source.titleSource,
      configSelections: { ...source.configSelections, ...source.unavailableConfigSelections },
      labels: source.labels,
      goal: source.goal,
      queuePaused: source.queuePaused,
      createdAt: source.createdAt,
    },
    items,
    details: items.flatMap((item) =>
      deps.transcript.after(item.id, 0, MAX_DETAILS).map((entry) => ({ itemId: item.id, key: entry.key, payload: entry.payload })),
    ),
    queue: deps.queue.list(source.id),
    tree: isRepository ? await packWorkingTree(source.cwd) : null,
  };
}

/**
 * Stores an arrived session, live: copies of the items, details and queued prompts under the new session.
 * Its agent has no session to load, so the conversation is handed over with its first prompt.
 */
export function storeArrived(deps: MovePackageDeps, pack: MovePackage, folder: ArrivedFolder, status: string, now: string): StoredSession {
  const session = newStoredSession({
    id: pack.sessionId,
    harnessId: pack.session.harnessId,
    harnessAccountId: null,
    title: pack.session.title,
    titleSource: pack.session.titleSource,
    ...folder,
    selections: pack.session.configSelections,
    parentSessionId: null,
    labels: pack.session.labels,
    now,
  });
  Object.assign(session, { createdAt: pack.session.createdAt, goal: pack.session.goal, queuePaused: pack.session.queuePaused, status });
  session.historyHandoff = pack.items.length > 0;
  deps.sessions.save(session);
  // New ids: the session may come back to a machine that still holds its earlier self, ids and all.
  const itemIds = new Map(pack.items.map((item) => [item.id, newId("msg")]));
  for (const item of pack.items) deps.conversation.append(session.id, { ...item, id: itemIds.get(item.id)! });
  for (const entry of pack.details) {
    const itemId = itemIds.get(entry.itemId);
    if (itemId) deps.transcript.put(session.id, itemId, entry.key, entry.payload);
  }
  for (const prompt of pack.queue) deps.queue.add({ ...prompt, id: newId("prm"), sessionId: session.id });
  return session;
}
