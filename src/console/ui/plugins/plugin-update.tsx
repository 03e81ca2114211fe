import { useState } from "preact/hooks";
import type { Plugin, PluginUpdatePlan } from "../../../schemas/plugins.ts";
import { ApiError, api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import type { ApplyPlugin } from "./use-plugins.ts";

/**
 * Updating a plugin in two steps: the server reads its source again and says what would change (the
 * consent), then applies that plan. "Up to date" (a 409 to planning) is news, not a failure.
 */
export function PluginUpdate({ plugin, path, apply }: { plugin: Plugin; path: string; apply: ApplyPlugin }) {
  const [plan, setPlan] = useState<PluginUpdatePlan | null>(null);
  const [news, setNews] = useState<string | null>(null);
  const { busy, error, run } = useAction();

  const check = () =>
    run(async () => {
      setNews(null);
      setPlan(null);
      try {
        setPlan(await api<PluginUpdatePlan>("POST", `${path}/update/plan`));
      } catch (failure) {
        if (!(failure instanceof ApiError && failure.status === 409)) throw failure;
        setNews(failure.message);
      }
    });
  const update = (planned: PluginUpdatePlan) =>
    run(async () => {
      await apply(() => api<Plugin>("POST", `${path}/update/apply`, { planId: planned.planId }));
      setPlan(null);
    });

  return (
    <div class="plugin-update">
      <div class="row-actions">
        <button type="button" class="quiet-button small" disabled={busy} onClick={check}>
          Check for an update
        </button>
        {plugin.canRestore && (
          <button type="button" class="quiet-button small" disabled={busy} onClick={() => run(() => apply(() => api<Plugin>("POST", `${path}/restore`)))}>
            Restore the version before
          </button>
        )}
      </div>
      {news && (
        <p class="quiet" role="status">
          {news}
        </p>
      )}
      {plan && (
        <div class="plugin-plan">
          <p>
            {plan.fromVersion} → {plan.toVersion}
          </p>
          <ul aria-label="What changes">
            {plan.changes.map((change) => (
              <li key={change}>{change}</li>
            ))}
          </ul>
          <div class="row-actions">
            <button type="button" class="small" disabled={busy} onClick={() => update(plan)}>
              Update to {plan.toVersion}
            </button>
            <button type="button" class="quiet-button small" disabled={busy} onClick={() => setPlan(null)}>
              Not now
            </button>
          </div>
        </div>
      )}
      <Alert error={error} />
    </div>
  );
}
