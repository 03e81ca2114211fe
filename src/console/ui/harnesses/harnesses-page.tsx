import type { Harness } from "../../../schemas/harnesses.ts";
import { api } from "../shared/api.ts";
import { HarnessCard } from "./harness-card.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import { useHarnesses } from "./use-harnesses.ts";
import { PageHeading } from "../shell/page-heading.tsx";

/** The coding-agent CLIs on this machine: readiness, sign-in and accounts, install and update, followed live. */
export function HarnessesPage() {
  const { harnesses, feed, error, apply } = useHarnesses();
  const rescan = useAction();
  const refresh = useAction();
  const reload = (action: typeof rescan, path: string) => action.run(() => apply(() => api<Harness[]>("POST", path)));

  return (
    <section class="harnesses-page">
      <header class="page-header">
        <PageHeading text="Harnesses" />
        <div class="harness-actions">
          <button type="button" class="quiet-button" onClick={() => reload(refresh, "/v1/harnesses/auth/refresh")} disabled={refresh.busy}>
            {refresh.busy ? "Checking…" : "Refresh sign-in"}
          </button>
          <button type="button" onClick={() => reload(rescan, "/v1/harnesses/rescan")} disabled={rescan.busy}>
            {rescan.busy ? "Scanning…" : "Rescan"}
          </button>
        </div>
      </header>
      <Alert error={error ?? rescan.error ?? refresh.error} />
      {harnesses === null ? (
        !error && <p class="quiet">Loading…</p>
      ) : (
        <ul class="cards harness-cards">
          {harnesses.map((harness) => (
            <HarnessCard key={harness.id} harness={harness} feed={feed} apply={apply} />
          ))}
        </ul>
      )}
    </section>
  );
}
