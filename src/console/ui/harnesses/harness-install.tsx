import { useState } from "preact/hooks";
import type { Harness } from "../../../schemas/harnesses.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { api } from "../shared/api.ts";
import { harnessPath } from "./harness-labels.ts";
import type { TerminalFeed } from "../shared/terminal-feed.ts";
import { TerminalLog } from "../shared/terminal-log.tsx";
import type { ApplyHarnesses } from "./use-harnesses.ts";

type InstallMethod = Harness["installMethods"][number];

const unavailableReason = (method: InstallMethod) => `${method.kind} is not on the server's PATH`;

/** The install methods, the recommended one first. */
const byRecommendation = (methods: InstallMethod[]) => [...methods].sort((a, b) => Number(b.recommended) - Number(a.recommended));

/** Which tool installs the harness: a choice when there are several, each unavailable one disabled with why. */
function MethodChoice({ methods, chosen, choose }: { methods: InstallMethod[]; chosen: InstallMethod; choose: (id: string) => void }) {
  return (
    <div class="install-method">
      {methods.length > 1 && (
        <label>
          Install with{" "}
          <select value={chosen.id} onChange={(event) => choose(event.currentTarget.value)}>
            {methods.map((method) => (
              <option key={method.id} value={method.id} disabled={!method.available}>
                {method.available ? method.label : `${method.label} (${unavailableReason(method)})`}
              </option>
            ))}
          </select>
        </label>
      )}
      <code class="harness-command">{chosen.command}</code>
      {!chosen.available && <p class="detail">{unavailableReason(chosen)}</p>}
    </div>
  );
}

/** Where the harness's install or update stands: running, or failed with the server's reason. */
function LifecyclePhase({ lifecycle }: { lifecycle: Harness["lifecycle"] }) {
  if (lifecycle.phase === "installing" || lifecycle.phase === "updating") {
    return <p role="status">{lifecycle.phase === "installing" ? "Installing…" : "Updating…"}</p>;
  }
  if (lifecycle.phase === "failed") return <Alert error={`Failed: ${lifecycle.error ?? "the operation did not finish"}`} />;
  return null;
}

/**
 * Installs or updates the harness (`POST …/install` or `…/update`, which answer at once and run in the
 * background), with the phase and the live output of the last operation.
 */
export function HarnessInstall({ harness, feed, apply }: { harness: Harness; feed: TerminalFeed; apply: ApplyHarnesses }) {
  const methods = byRecommendation(harness.installMethods);
  const [methodId, setMethodId] = useState(methods[0]?.id);
  const [logOpen, setLogOpen] = useState(harness.lifecycle.phase !== "idle");
  const action = useAction();
  const { lifecycle } = harness;
  const running = lifecycle.phase === "installing" || lifecycle.phase === "updating";
  const chosen = methods.find((method) => method.id === methodId) ?? methods[0];
  const offerInstall = harness.readiness.state === "missing";
  const offerUpdate = harness.readiness.state !== "missing" && harness.updateInfo.updateAvailable;

  const start = (operation: "install" | "update") =>
    action.run(async () => {
      await apply(() => api<Harness>("POST", `${harnessPath(harness.id)}/${operation}`, { methodId: chosen?.id }));
      setLogOpen(true);
    });
  const disabled = action.busy || !chosen?.available;

  return (
    <div class="harness-install">
      <LifecyclePhase lifecycle={lifecycle} />
      {chosen && !running && (offerInstall || offerUpdate) && (
        <div class="install-controls">
          <MethodChoice methods={methods} chosen={chosen} choose={setMethodId} />
          <div class="harness-actions">
            {offerInstall && (
              <button type="button" disabled={disabled} onClick={() => start("install")}>
                Install
              </button>
            )}
            {offerUpdate && (
              <button type="button" disabled={disabled} onClick={() => start("update")}>
                Update to {harness.updateInfo.latestVersion}
              </button>
            )}
          </div>
        </div>
      )}
      {!chosen && offerInstall && <p class="detail">{harness.installHint}</p>}
      <Alert error={action.error} />
      {lifecycle.terminalId && (
        <details class="install-log" open={logOpen} onToggle={(event) => setLogOpen(event.currentTarget.open)}>
          <summary>Output</summary>
          <TerminalLog key={lifecycle.terminalId} terminalId={lifecycle.terminalId} running={running} feed={feed} />
        </details>
      )}
    </div>
  );
}
