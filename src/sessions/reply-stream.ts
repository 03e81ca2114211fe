import type * as acp from "@agentclientprotocol/sdk";
import type { Store } from "../store/database.ts";
import type { TranscriptRepository } from "../store/transcript-repository.ts";
import type { SessionRecords } from "./session-records.ts";
import type { Logger } from "../logging/logger.ts";
import { backoffMs, storageProblem } from "../store/storage-errors.ts";
import type { PermissionAnswer } from "../schemas/transcript.ts";
import { mergeToolCall, thoughtKey, toolCallKey, type ThoughtDetails, type ToolCallDetails } from "./transcript-mapping.ts";

export interface ReplyStreamDeps {
  store: Store;
  records: SessionRecords;
  transcript: TranscriptRepository;
  /** Streamed text waits at most this long before it is written and published as one delta. */
  deltaFlushMs: number;
  logger: Logger;
  /** Writes that keep failing this long give up the turn (its text stays here until written). */
  writeFailureLimitMs: number;
}

/** Past this much buffered text, a delta is written at once rather than on the timer. */
const DELTA_FLUSH_BYTES = 64 * 1024;
/**
 * One delta carries at most this many characters (text buffered while writes failed is split), so an
 * event stays under 1 MiB even if every character needs a six-byte JSON escape.
 */
const MAX_DELTA_CHARS = 128 * 1024;

/**
 * What goes between a reply's text and the text the agent sends after a tool call or a thought: a
 * blank line, unless one is there already, so a heading or list that follows is still one.
 */
function paragraphBreak(tail: string, next: string): string {
  if (tail.length === 0) return "";
  const newlines = (/\n{0,2}$/.exec(tail)?.[0].length ?? 0) + (/^\n{0,2}/.exec(next)?.[0].length ?? 0);
  return "\n".repeat(Math.max(0, 2 - newlines));
}

/**
 * What the agent streams into one reply: text (published as deltas, batched on a short timer, and
 * stored by the event log's write-behind), thoughts and tool calls (the reply's transcript details, each with its offset into the
 * text), in the agent's order. Text that resumes after a call or a thought starts a new paragraph.
 *
 * A write that fails (the database locked by another process, a full disk) loses nothing: the text
 * stays buffered and is written again with backoff; the log refuses new deltas while it cannot store
 * those it published, so no client sees text that is not on its way to the database. When
 * writes keep failing past `writeFailureLimitMs`, `onWritesFailing` is told once, so the turn can end.
 */
export class ReplyStream {
  private pendingText = "";
  /** Thought text not yet written, per thought (a thought may end while its text waits), and where the thought began. */
  private readonly pendingThoughts = new Map<string, { text: string; textOffset: number }>();
  /** The reply's length so far (written and pending): where a thought or a tool call sits in it. */
  private textLength = 0;
  /** The reply's last two characters, to tell whether text after a tool call needs a paragraph break. */
  private textTail = "";
  /** A tool call or a thought came since the last text: the next text is a new paragraph. */
  private interrupted = false;
  /** The tool calls this reply has had, and those that ended, by id. */
  private readonly calls = new Set<string>();
  private readonly endedCalls = new Set<string>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** How many plan updates the reply has had: each is a call of its own. */
  private plans = 0;
  /** The last plan card, and the reply's text and calls when it was written: a plan update right after it updates it. */
  private planCard: { toolCallId: string; textLength: number; calls: number } | undefined;
  /** How many thoughts the reply has had, and the key of the one streaming now. */
  private thoughts = 0;
  private openThought: string | undefined;
  private closed = false;
  private failures = 0;
  private failingSinceMs: number | undefined;
  private gaveUp = false;

  constructor(
    private readonly sessionId: string,
    readonly itemId: string,
    private readonly deps: ReplyStreamDeps,
    private readonly onWritesFailing: (reason: string) => void,
  ) {}

  appendText(text: string): void {
    if (text.length === 0) return;
    // The reply goes on after a thought: that thought is complete, and a later one is a new entry.
    if (this.openThought) {
      this.flush();
      this.openThought = undefined;
    }
    const joined = (this.interrupted ? paragraphBreak(this.textTail, text) : "") + text;
    this.interrupted = false;
    this.pendingText += joined;
    this.textLength += joined.length;
    this.textTail = (this.textTail + joined).slice(-2);
    this.scheduleFlush();
  }

  appendThought(chunk: string): void {
    // A new thought starts at its first words (codex-acp opens each reasoning section with a blank line).
    const text = this.openThought ? chunk : chunk.trimStart();
    if (text.length === 0) return;
    if (!this.openThought) {
      this.openThought = thoughtKey(++this.thoughts);
      this.interrupted = this.textLength > 0;
    }
    const key = this.openThought;
    const pending = this.pendingThoughts.get(key);
    this.pendingThoughts.set(key, { text: (pending?.text ?? "") + text, textOffset: pending?.textOffset ?? this.textLength });
    this.scheduleFlush();
  }

  /**
   * The user refused a call (or its question was withdrawn): if the agent left it pending, it failed.
   * Some agents never report a refused call again (Qwen Code), which would leave it pending for ever.
   */
  refuseCall(toolCallId: string): void {
    if (this.endedCalls.has(toolCallId)) return;
    let known: ToolCallDetails | ThoughtDetails | undefined;
    try {
      known = this.deps.transcript.get(this.itemId, toolCallKey(toolCallId))?.payload;
    } catch (error) {
      this.deps.logger.warn("a refused tool call could not be read", { sessionId: this.sessionId, toolCallId, error });
      return;
    }
    if (known?.type === "tool_call" && (known.status === null || known.status === "pending")) this.recordToolCall({ toolCallId, status: "failed" });
  }

  /** The user's answer to the permission question about a call, kept on the call so the conversation shows it. */
  recordPermission(toolCallId: string, permission: PermissionAnswer): void {
    const key = toolCallKey(toolCallId);
    try {
      this.deps.store.transaction(() => {
        const known = this.deps.transcript.get(this.itemId, key)?.payload;
        if (known?.type !== "tool_call") return;
        const at = this.deps.transcript.put(this.sessionId, this.itemId, key, { ...known, permission });
        this.deps.records.emit(this.sessionId, "session.transcript", { itemId: this.itemId, key, ...at });
      });
    } catch (error) {
      this.deps.logger.warn("a permission answer could not be recorded", { sessionId: this.sessionId, toolCallId, error });
    }
  }

  /**
   * A plan update, as a call of its own in the reply: the agents' plan tools send the plan in place of
   * their call (Claude's task tools, Codex's update_plan), which would leave no card where the plan was
   * made. Like a call, it breaks the text. Updates that follow one another with no text or other call
   * between (Claude sends one per task it creates) are one card, showing the latest plan.
   */
  recordPlan(entries: acp.PlanEntry[]): void {
    const checklist = entries.map(
      (entry) => `- [${entry.status === "completed" ? "x" : " "}] ${entry.content}${entry.status === "in_progress" ? " (in progress)" : ""}`,
    );
    // Text still buffered counts as text between the two.
    this.flush();
    const last = this.planCard;
    const toolCallId = last && last.textLength === this.textLength && last.calls === this.calls.size ? last.toolCallId : `plan-${++this.plans}`;
    this.recordToolCall({
      toolCallId,
      title: "Plan",
      kind: "think",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: checklist.join("\n") } }],
      rawInput: { entries },
    });
    this.planCard = { toolCallId, textLength: this.textLength, calls: this.calls.size };
  }

  /**
   * A tool call or its update, merged into the reply's details (it also ends a streaming thought).
   * Returns the call as now known, also when it could not be written.
   */
  recordToolCall(update: acp.ToolCall | acp.ToolCallUpdate): ToolCallDetails {
    this.flush();
    this.openThought = undefined;
    // A new call breaks the text, and so does its end (what follows is the model's next answer); other
    // updates of a known call (its progress, its output) do not.
    const ends = update.status === "completed" || update.status === "failed";
    if (!this.calls.has(update.toolCallId) || (ends && !this.endedCalls.has(update.toolCallId))) {
      this.calls.add(update.toolCallId);
      this.interrupted = this.textLength > 0;
    }
    if (ends) this.endedCalls.add(update.toolCallId);
    const key = toolCallKey(update.toolCallId);
    let merged: ToolCallDetails | undefined;
    try {
      this.deps.store.transaction(() => {
        const known = this.deps.transcript.get(this.itemId, key)?.payload as ToolCallDetails | undefined;
        merged = mergeToolCall(known, update, this.textLength);
        const at = this.deps.transcript.put(this.sessionId, this.itemId, key, merged);
        this.deps.records.emit(this.sessionId, "session.transcript", { itemId: this.itemId, key, ...at });
      });
    } catch (error) {
      // The call's next update is merged over what is stored, so it carries the state again.
      this.deps.logger.warn("a tool call could not be recorded", { sessionId: this.sessionId, toolCallId: update.toolCallId, error });
    }
    return merged ?? mergeToolCall(undefined, update, this.textLength);
  }

  /**
   * Publishes buffered reply text as deltas (stored a moment later with those that follow: the log's
   * write-behind) and writes thought text (one transcript change each); runs before any other event of
   * the session, so events keep the agent's order. False when a write failed: what was not published
   * stays buffered, and a retry is scheduled.
   */
  flush(): boolean {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if ((this.pendingText.length === 0 && this.pendingThoughts.size === 0) || this.closed) return true;
    try {
      // The deltas are the reply's stored text (joined on read): each byte is written once.
      while (this.pendingText.length > 0) {
        const text = this.pendingText.slice(0, MAX_DELTA_CHARS);
        this.deps.records.emitLive(this.sessionId, "session.message.delta", { itemId: this.itemId, text });
        this.pendingText = this.pendingText.slice(text.length);
      }
      this.writeThoughts();
    } catch (error) {
      this.writeFailed(error);
      return false;
    }
    this.failures = 0;
    this.failingSinceMs = undefined;
    return true;
  }

  private writeThoughts(): void {
    if (this.pendingThoughts.size === 0) return;
    const thoughts = [...this.pendingThoughts];
    this.deps.store.transaction(() => {
      for (const [key, thought] of thoughts) {
        const at =
          this.deps.transcript.appendText(this.itemId, key, "text", thought.text) ??
          this.deps.transcript.put(this.sessionId, this.itemId, key, { type: "thought", text: thought.text, textOffset: thought.textOffset });
        this.deps.records.emit(this.sessionId, "session.transcript", { itemId: this.itemId, key, ...at });
      }
    });
    this.pendingThoughts.clear();
  }

  private writeFailed(error: unknown): void {
    const nowMs = Date.now();
    this.failingSinceMs ??= nowMs;
    if (this.failures === 0) this.deps.logger.warn("a reply could not be written; it is kept and written again", { sessionId: this.sessionId, error });
    this.failures++;
    if (!this.gaveUp && nowMs - this.failingSinceMs >= this.deps.writeFailureLimitMs) {
      this.gaveUp = true;
      const problem = storageProblem(error)?.message ?? (error instanceof Error ? error.message : String(error));
      this.onWritesFailing(
        `the reply could not be written for ${Math.round((nowMs - this.failingSinceMs) / 1000)} s (${problem}); what the agent sent is kept and written once that works again`,
      );
    }
    this.flushTimer = setTimeout(() => this.flush(), backoffMs(this.failures));
    this.flushTimer.unref?.();
  }

  /** Drops what is still buffered (the session stopped: a restart marks the reply interrupted). */
  close(): void {
    this.closed = true;
    clearTimeout(this.flushTimer);
  }

  private scheduleFlush(): void {
    // While writes fail, the retry already scheduled writes everything; appends only buffer.
    if (this.failures > 0) return;
    if (this.pendingText.length >= DELTA_FLUSH_BYTES) {
      this.flush();
      return;
    }
    this.flushTimer ??= setTimeout(() => this.flush(), this.deps.deltaFlushMs);
  }
}
