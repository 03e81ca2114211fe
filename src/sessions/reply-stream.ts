import type * as acp from "@agentclientprotocol/sdk";
import type { Store } from "../store/database.ts";
import type { ConversationRepository } from "../store/conversation-repository.ts";
import type { TranscriptRepository } from "../store/transcript-repository.ts";
import type { SessionRecords } from "./session-records.ts";
import { mergeToolCall, thoughtKey, toolCallKey, type ToolCallDetails } from "./transcript-mapping.ts";

export interface ReplyStreamDeps {
  store: Store;
  records: SessionRecords;
  conversation: ConversationRepository;
  transcript: TranscriptRepository;
  /** Streamed text waits at most this long before it is written and published as one delta. */
  deltaFlushMs: number;
}

/** Past this much buffered text, a delta is written at once rather than on the timer. */
const DELTA_FLUSH_BYTES = 64 * 1024;

/**
 * What the agent streams into one reply: text (written and published as deltas, batched on a short
 * timer), thoughts and tool calls (the reply's transcript details), in the agent's order.
 */
export class ReplyStream {
  private pendingText = "";
  private pendingThought = "";
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** How many thoughts the reply has had, and the key of the one streaming now. */
  private thoughts = 0;
  private openThought: string | undefined;
  private closed = false;

  constructor(
    private readonly sessionId: string,
    readonly itemId: string,
    private readonly deps: ReplyStreamDeps,
  ) {}

  appendText(text: string): void {
    if (text.length === 0) return;
    // The reply goes on after a thought: that thought is complete, and a later one is a new entry.
    if (this.openThought) {
      this.flush();
      this.openThought = undefined;
    }
    this.pendingText += text;
    this.scheduleFlush();
  }

  appendThought(text: string): void {
    if (text.length === 0) return;
    this.openThought ??= thoughtKey(++this.thoughts);
    this.pendingThought += text;
    this.scheduleFlush();
  }

  /** A tool call or its update, merged into the reply's details (it also ends a streaming thought). */
  recordToolCall(update: acp.ToolCall | acp.ToolCallUpdate): void {
    this.flush();
    this.openThought = undefined;
    const key = toolCallKey(update.toolCallId);
    this.deps.store.transaction(() => {
      const known = this.deps.transcript.get(this.itemId, key)?.payload as ToolCallDetails | undefined;
      const at = this.deps.transcript.put(this.sessionId, this.itemId, key, mergeToolCall(known, update));
      this.deps.records.emit(this.sessionId, "session.transcript", { itemId: this.itemId, key, ...at });
    });
  }

  /**
   * Writes buffered reply text (published as one delta) and thought text (one transcript change);
   * runs before any other event of the session, so events keep the agent's order.
   */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const text = this.pendingText;
    const thought = this.pendingThought;
    if ((text.length === 0 && thought.length === 0) || this.closed) return;
    this.pendingText = "";
    this.pendingThought = "";
    this.deps.store.transaction(() => {
      if (text.length > 0) {
        this.deps.conversation.appendText(this.itemId, text);
        this.deps.records.emit(this.sessionId, "session.message.delta", { itemId: this.itemId, text });
      }
      if (thought.length > 0 && this.openThought) {
        const key = this.openThought;
        const at =
          this.deps.transcript.appendText(this.itemId, key, "text", thought) ??
          this.deps.transcript.put(this.sessionId, this.itemId, key, { type: "thought", text: thought });
        this.deps.records.emit(this.sessionId, "session.transcript", { itemId: this.itemId, key, ...at });
      }
    });
  }

  /** Drops what is still buffered (the session stopped: a restart marks the reply interrupted). */
  close(): void {
    this.closed = true;
    clearTimeout(this.flushTimer);
  }

  private scheduleFlush(): void {
    if (this.pendingText.length + this.pendingThought.length >= DELTA_FLUSH_BYTES) return this.flush();
    this.flushTimer ??= setTimeout(() => this.flush(), this.deps.deltaFlushMs);
  }
}
