import type { Static } from "@sinclair/typebox";
import type { Store } from "../store/database.ts";
import type { PromptQueueRepository } from "../store/prompt-queue-repository.ts";
import type { UploadedFiles } from "../files/uploaded-files.ts";
import type { QueuedPrompt, SessionMove } from "../schemas/sessions.ts";
import type { SendPromptBody } from "../schemas/session-requests.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import { mentionOf } from "./prompt-mentions.ts";
import { resumeQueue, type SessionRecords } from "./session-records.ts";

export interface SessionPromptsDeps {
  store: Store;
  records: SessionRecords;
  queue: PromptQueueRepository;
  files: UploadedFiles;
  /** A prompt was queued: the session's next turn starts if none runs. */
  startNext(sessionId: string): void;
}

/** Why a session that is moving, or moved, takes no prompt (or other `change`). */
export function movedRefusal(move: SessionMove, change = "send the prompt"): string {
  return move.state === "moving"
    ? `the session is moving to ${move.machineName}; ${change} once the move has ended (there, as session ${move.sessionId}, if it moved)`
    : `the session moved to ${move.machineName} (session ${move.sessionId} there): ${change} there`;
}

/** A change to what a move copies is refused while it moves (the copy would miss it) and once it moved. */
export function refuseWhileMoved(session: { move?: SessionMove | null }, change: string): void {
  if (session.move) throw new ConflictError(movedRefusal(session.move, change));
}

/** The prompts a session queues: sent (once per clientId), edited and dropped while they wait. */
export class SessionPrompts {
  constructor(private readonly deps: SessionPromptsDeps) {}

  /** Queues a prompt; it starts at once when no turn runs. The same clientId twice is one prompt. */
  enqueue(id: string, body: Static<typeof SendPromptBody>): { prompt: QueuedPrompt; created: boolean } {
    const result = this.queue(id, body, { takesOver: true });
    this.startNext(id);
    return result;
  }

  /**
   * Queues a prompt in the caller's transaction without starting it (`startNext` does, once that has
   * committed). A prompt the user sends takes over again (`takesOver`): a queue a spent goal budget
   * paused goes on. A scheduled prompt does not: it waits in the paused queue like the others.
   */
  queue(id: string, body: Static<typeof SendPromptBody>, { takesOver }: { takesOver: boolean }): { prompt: QueuedPrompt; created: boolean } {
    const clientId = body.clientId ?? null;
    return this.deps.store.transaction(() => {
      const session = this.deps.records.get(id);
      if (session.move) throw new ConflictError(movedRefusal(session.move));
      if (clientId) {
        const existing = this.deps.queue.findByClientId(id, clientId);
        if (existing) return { prompt: existing, created: false };
      }
      const attachments = (body.attachments ?? []).map((ref, index) => this.deps.files.attachment(ref.fileId, `attachments[${index}].fileId`));
      const mentions = (body.mentions ?? []).map((ref, index) => mentionOf(session.cwd, ref.path, `mentions[${index}].path`));
      const now = this.deps.records.timestamp();
      const prompt: QueuedPrompt = {
        id: newId("prm"),
        sessionId: id,
        text: body.text,
        createdAt: now,
        updatedAt: now,
        attachments,
        ...(mentions.length > 0 ? { mentions } : {}),
        clientId,
      };
      this.deps.queue.add(prompt);
      this.deps.records.emit(id, "session.prompt.queued", { prompt });
      if (takesOver && session.queuePaused) this.deps.records.update(id, resumeQueue);
      return { prompt, created: true };
    });
  }

  /** The session's next turn starts if none runs (and its queue is not held). */
  startNext(id: string): void {
    this.deps.startNext(id);
  }

  editPrompt(id: string, promptId: string, text: string): QueuedPrompt {
    return this.deps.store.transaction(() => {
      const prompt = this.queued(id, promptId);
      const edited = { ...prompt, text, updatedAt: this.deps.records.timestamp() };
      this.deps.queue.update(edited);
      this.deps.records.emit(id, "session.prompt.updated", { prompt: edited });
      return edited;
    });
  }

  dropPrompt(id: string, promptId: string): { id: string } {
    return this.deps.store.transaction(() => {
      this.queued(id, promptId);
      this.deps.queue.remove(promptId);
      this.deps.records.emit(id, "session.prompt.removed", { promptId });
      return { id: promptId };
    });
  }

  private queued(id: string, promptId: string): QueuedPrompt {
    refuseWhileMoved(this.deps.records.get(id), "change its queued prompts");
    const prompt = this.deps.queue.get(promptId);
    if (!prompt || prompt.sessionId !== id) throw new NotFoundError(`no queued prompt ${promptId} in session ${id} (it may have started)`);
    return prompt;
  }
}
