import type { ConversationRepository } from "../store/conversation-repository.ts";
import type { PromptQueueRepository } from "../store/prompt-queue-repository.ts";
import type { Attachment, ConversationItem, PromptMention } from "../schemas/sessions.ts";
import { NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import { type SessionRecords, titleFrom } from "./session-records.ts";

/** The prompt a turn sends, and what its start recorded. */
export interface TurnPrompt {
  text: string;
  attachments: Attachment[];
  /** The prompt's conversation item. */
  userItemId: string;
  /** Files of the session's folder it names. */
  mentions: PromptMention[];
  /** The generating reply's conversation item. */
  replyId: string;
  /** The context the session had used before the turn (its goal counts from there). */
  contextAtStart: number;
}

interface TurnStartDeps {
  records: SessionRecords;
  conversation: ConversationRepository;
  queue: PromptQueueRepository;
}

/** Takes the prompt off the queue: it and an empty, generating reply join the conversation, and the session is working. */
export function takePrompt(deps: TurnStartDeps, sessionId: string, promptId: string): TurnPrompt {
  const now = deps.records.timestamp();
  const userItemId = newId("msg");
  const replyId = newId("msg");
  let taken: TurnPrompt | undefined;
  deps.records.update(sessionId, (session) => {
    const prompt = deps.queue.get(promptId);
    if (!prompt) throw new NotFoundError(`prompt ${promptId} is gone`);
    deps.queue.remove(promptId);
    const user: ConversationItem = {
      id: userItemId,
      role: "user",
      messageId: null,
      text: prompt.text,
      createdAt: now,
      isGenerating: false,
      attachments: prompt.attachments,
      stopReason: null,
    };
    const reply: ConversationItem = { ...user, id: replyId, role: "assistant", text: "", isGenerating: true, attachments: [] };
    deps.conversation.append(sessionId, user);
    deps.conversation.append(sessionId, reply, true);
    deps.records.emit(sessionId, "session.prompt.started", { promptId, itemId: userItemId });
    deps.records.emit(sessionId, "session.message.created", { item: user });
    deps.records.emit(sessionId, "session.message.created", { item: reply });
    if (session.titleSource === "default") {
      session.title = titleFrom(prompt.text);
      session.titleSource = "prompt";
    }
    session.sidebarState = "working";
    session.status = null;
    taken = { text: prompt.text, attachments: prompt.attachments, mentions: prompt.mentions ?? [], userItemId, replyId, contextAtStart: session.usage.used };
  });
  return taken!;
}
