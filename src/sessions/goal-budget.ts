import type { Goal } from "../schemas/sessions.ts";

/**
 * A session's goal: what the user is after and how many tokens it may take. Tokens and seconds are
 * counted while turns run; spending the budget stops the work (the runtime cancels and pauses).
 */

/**
 * Sets the goal. The same objective again keeps what was counted (raising the budget of a spent goal
 * lets the work go on); a new objective starts counting from nothing.
 */
export function reviseGoal(current: Goal | null, objective: string, tokenBudget: number | null, activity: Goal["activity"], now: string): Goal {
  const kept = current?.objective === objective ? current : undefined;
  const goal: Goal = {
    objective,
    status: "active",
    activity,
    tokenBudget,
    tokensUsed: kept?.tokensUsed ?? 0,
    timeUsedSeconds: kept?.timeUsedSeconds ?? 0,
    createdAt: kept?.createdAt ?? now,
    updatedAt: now,
  };
  if (isSpent(goal)) goal.status = "budget_exhausted";
  return goal;
}

/** Counts tokens and seconds against an active goal; true when this spent its budget. */
export function chargeGoal(goal: Goal, tokens: number, seconds: number, now: string): boolean {
  if (goal.status !== "active") return false;
  goal.tokensUsed += Math.max(0, Math.round(tokens));
  goal.timeUsedSeconds = Math.round((goal.timeUsedSeconds + Math.max(0, seconds)) * 1000) / 1000;
  goal.updatedAt = now;
  if (!isSpent(goal)) return false;
  goal.status = "budget_exhausted";
  return true;
}

/** What the session's `status` says while a spent budget holds the queue. */
export function budgetSpentStatus(goal: Goal): string {
  return `the goal's token budget is spent (${goal.tokensUsed} of ${goal.tokenBudget} tokens); queued prompts wait until the budget is raised, the goal removed, or a prompt is sent`;
}

function isSpent(goal: Goal): boolean {
  return goal.tokenBudget !== null && goal.tokensUsed >= goal.tokenBudget;
}
