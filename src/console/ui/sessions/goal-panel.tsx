import { useState } from "preact/hooks";
import type { Goal } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

/** What the session is for and how many tokens it may take; set, raise or remove it. */
export function GoalPanel({ sessionId, goal }: { sessionId: string; goal: Goal | null }) {
  const [objective, setObjective] = useState(goal?.objective ?? "");
  const [budget, setBudget] = useState(goal?.tokenBudget ? String(goal.tokenBudget) : "");
  const action = useAction();
  const path = `/v1/sessions/${sessionId}/goal`;
  const save = (event: Event) => {
    event.preventDefault();
    void action.run(() => api("PUT", path, { objective: objective.trim(), tokenBudget: budget ? Number(budget) : null }));
  };
  return (
    <section class="panel" aria-label="Goal">
      <h3>Goal</h3>
      {goal && (
        <p class={goal.status === "budget_exhausted" ? "error" : undefined}>
          {goal.objective} · {goal.activity} · {goal.tokensUsed.toLocaleString()}
          {goal.tokenBudget !== null && ` of ${goal.tokenBudget.toLocaleString()}`} tokens
          {goal.status === "budget_exhausted" && " · budget spent"}
        </p>
      )}
      <form class="goal-form" onSubmit={save}>
        <label>
          Objective
          <input value={objective} onInput={(event) => setObjective(event.currentTarget.value)} />
        </label>
        <label>
          Token budget
          <input type="number" min={1} inputMode="numeric" value={budget} onInput={(event) => setBudget(event.currentTarget.value)} />
        </label>
        <div class="row-actions">
          <button type="submit" class="small" disabled={action.busy || !objective.trim()}>
            {goal ? "Change goal" : "Set goal"}
          </button>
          {goal && (
            <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => action.run(() => api("DELETE", path))}>
              Remove goal
            </button>
          )}
        </div>
      </form>
      <Alert error={action.error} />
    </section>
  );
}
