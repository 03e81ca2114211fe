import type { Goal } from "../schemas/sessions.ts";
import { chargeGoal } from "./goal-budget.ts";

/**
 * A turn's tokens as they become known, and how much of them (and of its time) its session's goal was
 * charged: the growth of the context window estimates them while the turn runs, the count the agent
 * reports at its end replaces the estimate when larger.
 */
export class TurnTokens {
  private tokens = 0;
  private charged = 0;
  private chargedUntilMs: number;

  /** `contextAtStart`: the context tokens in use when the turn began. */
  constructor(
    private readonly contextAtStart: number,
    nowMs = Date.now(),
  ) {
    this.chargedUntilMs = nowMs;
  }

  /** The context window is at `used` tokens (the agent's usage_update). */
  noteContext(used: number): void {
    this.tokens = Math.max(this.tokens, used - this.contextAtStart);
  }

  /** The turn's model calls were counted one by one as they came (the turn's answer then adds nothing). */
  countedPerCall = false;
  private callTotal = 0;

  /** The agent reported one model call's count (Qwen Code's `_meta.usage`). */
  noteCall(total: number): void {
    this.countedPerCall = true;
    this.callTotal += total;
    this.tokens = Math.max(this.tokens, this.callTotal);
  }

  /** The agent reported the turn's own count. */
  noteReported(total: number): void {
    this.tokens = Math.max(this.tokens, total);
  }

  /** A goal set (or raised) during the turn counts from now on, not from the turn's start. */
  restartCount(nowMs = Date.now()): void {
    this.charged = this.tokens;
    this.chargedUntilMs = nowMs;
  }

  /** Charges `goal` with the tokens and time since the last charge; true when that spent its budget. */
  charge(goal: Goal, timestamp: string, nowMs = Date.now()): boolean {
    const spent = chargeGoal(goal, this.tokens - this.charged, (nowMs - this.chargedUntilMs) / 1000, timestamp);
    this.charged = Math.max(this.charged, this.tokens);
    this.chargedUntilMs = nowMs;
    return spent;
  }
}
