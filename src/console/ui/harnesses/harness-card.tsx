import type { Harness } from "../../../schemas/harnesses.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { api } from "../shared/api.ts";
import { HarnessAccounts } from "./harness-accounts.tsx";
import { HarnessInstall } from "./harness-install.tsx";
import { AUTH, harnessPath, READINESS } from "./harness-labels.ts";
import { ProviderLogin } from "./provider-login.tsx";
import type { TerminalFeed } from "../shared/terminal-feed.ts";
import type { ApplyHarnesses } from "./use-harnesses.ts";

/** Turns the harness off for new sessions, or back on (`PATCH {enabled}`, the user's override). */
function EnabledSwitch({ harness, apply }: { harness: Harness; apply: ApplyHarnesses }) {
  const action = useAction();
  const toggle = () => action.run(() => apply(() => api<Harness>("PATCH", harnessPath(harness.id), { enabled: !harness.desiredEnabled })));
  return (
    <div>
      <button type="button" class="quiet-button small" disabled={action.busy} onClick={toggle}>
        {harness.desiredEnabled ? "Disable" : "Enable"}
      </button>
      <Alert error={action.error} />
    </div>
  );
}

/** One harness: readiness, version and sign-in, its install or update, its accounts, and switching it on or off. */
export function HarnessCard({ harness, feed, apply }: { harness: Harness; feed: TerminalFeed; apply: ApplyHarnesses }) {
  const { readiness, updateInfo } = harness;
  const installed = readiness.state !== "missing";
  return (
    <li class="card harness-card" data-harness={harness.id}>
      <div class="card-title">
        <strong>{harness.name}</strong>
        <span class="badges">
          {!harness.desiredEnabled && <span class="badge">Disabled</span>}
          <span class={`badge ${readiness.state}`}>{READINESS[readiness.state]}</span>
        </span>
      </div>
      <p class="quiet">
        {readiness.version ?? "no version"} · {AUTH[harness.auth.state]}
        {updateInfo.updateAvailable && ` · ${updateInfo.latestVersion} available`}
      </p>
      {readiness.detail && <p class="detail">{readiness.detail}</p>}
      <HarnessInstall harness={harness} feed={feed} apply={apply} />
      <HarnessAccounts harness={harness} apply={apply} />
      {harness.id === "opencode" && installed && <ProviderLogin />}
      <EnabledSwitch harness={harness} apply={apply} />
    </li>
  );
}
