import { useState } from "preact/hooks";
import { AnsiOutput } from "../shared/ansi-output.tsx";
import { InlineMarkdown } from "../shared/inline-markdown.tsx";
import type { BackgroundTask, BackgroundTaskOutput, ConfigOption, SessionPlan, SessionUsage } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

const PLAN_MARKS = { completed: "✓", in_progress: "▸", pending: "○" } as const;

/** The agent's plan; while it waits for approval, approve or reject it (rejecting cancels the turn). */
export function PlanPanel({ sessionId, plan, awaitingApproval }: { sessionId: string; plan: SessionPlan | null; awaitingApproval: boolean }) {
  const action = useAction();
  if (!plan && !awaitingApproval) return null;
  return (
    <section class="panel" aria-label="Plan">
      <h3>Plan</h3>
      {plan && (
        <ol class="plan">
          {plan.entries.map((entry, index) => (
            <li key={`${index}:${entry.content}`} class={`plan-${entry.status}`} data-status={entry.status}>
              <span aria-hidden="true">{PLAN_MARKS[entry.status]}</span> <InlineMarkdown text={entry.content} />
            </li>
          ))}
        </ol>
      )}
      {awaitingApproval && (
        <div class="row-actions">
          <button type="button" disabled={action.busy} onClick={() => action.run(() => api("POST", `/v1/sessions/${sessionId}/plan/approve`))}>
            Approve plan
          </button>
          <button
            type="button"
            class="quiet-button"
            disabled={action.busy}
            onClick={() => action.run(() => api("POST", `/v1/sessions/${sessionId}/plan/reject`))}
          >
            Reject plan
          </button>
        </div>
      )}
      <Alert error={action.error} />
    </section>
  );
}

/** The agent's options (model, mode, effort…), each a picker set on the agent at once. */
export function ConfigPanel({ sessionId, options }: { sessionId: string; options: ConfigOption[] }) {
  const action = useAction();
  if (options.length === 0) return null;
  return (
    <section class="panel" aria-label="Options">
      <h3>Options</h3>
      {options.map((option) => (
        <ConfigPicker
          key={option.id}
          option={option}
          busy={action.busy}
          choose={(value) => void action.run(() => api("POST", `/v1/sessions/${sessionId}/config`, { configId: option.id, value }))}
        />
      ))}
      <Alert error={action.error} />
    </section>
  );
}

/** One option's picker, with what its current choice does said below it (a phone has no hover for a tooltip). */
function ConfigPicker({ option, busy, choose }: { option: ConfigOption; busy: boolean; choose: (value: string) => void }) {
  const description = option.options.find((choice) => choice.value === option.currentValue)?.description;
  const describedBy = `config-${option.id}-says`;
  return (
    <label>
      {option.name}
      <select
        value={option.currentValue}
        disabled={busy}
        aria-describedby={description ? describedBy : undefined}
        onChange={(event) => choose(event.currentTarget.value)}
      >
        {option.options.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.name}
          </option>
        ))}
      </select>
      {description && (
        <span id={describedBy} class="quiet option-says">
          {description}
        </span>
      )}
    </label>
  );
}

const count = (value: number | null) => (value === null ? "unknown" : value.toLocaleString());

/** Whether the agent has reported any usage yet (the panel, and its tab, wait for it). */
export const hasUsage = (usage: SessionUsage) => Boolean(usage.totalTokens) || usage.used > 0 || usage.costAmount !== null;

/** The context window in use and the tokens and cost of the session's turns. */
export function UsagePanel({ usage }: { usage: SessionUsage }) {
  if (!hasUsage(usage)) return null;
  return (
    <section class="panel" aria-label="Usage">
      <h3>Usage</h3>
      <dl class="facts">
        {usage.size > 0 && (
          <>
            <dt>Context</dt>
            <dd>
              <meter min={0} max={usage.size} value={usage.used} /> {count(usage.used)} of {count(usage.size)}
            </dd>
          </>
        )}
        <dt>Tokens</dt>
        <dd>
          {usage.totalTokens === null
            ? "not reported by the agent"
            : `${count(usage.totalTokens)} (${count(usage.inputTokens)} in, ${count(usage.outputTokens)} out)`}
        </dd>
        {usage.costAmount !== null && (
          <>
            <dt>Cost</dt>
            <dd>
              {usage.costAmount.toFixed(2)} {usage.costCurrency}
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

function TaskRow({ sessionId, task }: { sessionId: string; task: BackgroundTask }) {
  const [output, setOutput] = useState<BackgroundTaskOutput | null>(null);
  const action = useAction();
  const read = () => action.run(async () => setOutput(await api<BackgroundTaskOutput>("GET", `/v1/sessions/${sessionId}/tasks/${task.terminalKey}`)));
  return (
    <li>
      <div class="task-line">
        <span>{task.description}</span> <span class="quiet">{task.status}</span>
        <button type="button" class="quiet-button small" disabled={action.busy} onClick={read}>
          {output ? "Read again" : "Output"}
        </button>
      </div>
      {output && (
        <pre class="terminal">
          {output.truncated && "… (older output dropped)\n"}
          <AnsiOutput text={output.output} />
          {output.exitCode !== null && `\n[exit ${output.exitCode}]`}
        </pre>
      )}
      <Alert error={action.error} />
    </li>
  );
}

/** The commands the agent runs in the background, with their output on demand. */
export function TasksPanel({ sessionId, tasks }: { sessionId: string; tasks: BackgroundTask[] }) {
  if (tasks.length === 0) return null;
  return (
    <section class="panel" aria-label="Background tasks">
      <h3>Background tasks</h3>
      <ul class="tasks">
        {tasks.map((task) => (
          <TaskRow key={task.id} sessionId={sessionId} task={task} />
        ))}
      </ul>
    </section>
  );
}
