import { useState } from "preact/hooks";
import type { McpMachineState, McpServer, UpdateMcpServerBody } from "../../../schemas/mcps.ts";
import { api } from "../shared/api.ts";
import { ConfirmStep } from "../shared/confirm-button.tsx";
import { mcpPath, STATE_CLASS, STATE_LABEL, TRANSPORT_LABEL } from "./mcp-labels.ts";
import { McpServerFacts } from "./mcp-server-facts.tsx";
import { McpServerForm } from "./mcp-server-form.tsx";
import { McpSignIn } from "./mcp-sign-in.tsx";
import type { ApplyMcp } from "./use-mcp-servers.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

/** The change a card has opened in place, one at a time. */
type OpenStep = "edit" | "delete" | null;

function Switch({ label, on, busy, onToggle }: { label: string; on: boolean; busy: boolean; onToggle: () => void }) {
  return (
    <button type="button" role="switch" aria-checked={on} class="quiet-button small mcp-switch" disabled={busy} onClick={onToggle}>
      {label}
    </button>
  );
}

/** On for the account (every machine), and on for this machine only (endpoint 16). */
function McpSwitches({ server, apply }: { server: McpServer; apply: ApplyMcp }) {
  const { busy, error, run } = useAction();
  const path = mcpPath(server.id);
  return (
    <div class="mcp-switches">
      <Switch
        label="Enabled"
        on={server.enabled}
        busy={busy}
        onToggle={() => run(() => apply(() => api<McpServer>("PATCH", path, { enabled: !server.enabled })))}
      />
      <Switch
        label="On this machine"
        on={!server.disabledHere}
        busy={busy}
        onToggle={() =>
          run(() => apply(async () => (await api<McpMachineState>("PUT", `${path}/machine-state`, { disabledHere: !server.disabledHere })).server))
        }
      />
      <Alert error={error} />
    </div>
  );
}

interface McpServerCardProps {
  server: McpServer;
  apply: ApplyMcp;
  remove: (id: string) => Promise<void>;
}

/** One server: how it is reached, what its last probe found, and (for Atrium's own) the changes to it. */
export function McpServerCard({ server, apply, remove }: McpServerCardProps) {
  const [step, setStep] = useState<OpenStep>(null);
  const probe = useAction();
  const removal = useAction();
  const path = mcpPath(server.id);
  const toggle = (wanted: OpenStep) => setStep((current) => (current === wanted ? null : wanted));
  const save = async (body: UpdateMcpServerBody) => {
    await apply(() => api<McpServer>("PATCH", path, body));
    setStep(null);
  };

  return (
    <li class="card mcp-card" data-mcp={server.id}>
      <div class="card-title">
        <h4>{server.name}</h4>
        <span class="badges">
          <span class="badge">{TRANSPORT_LABEL[server.transport]}</span>
          <span class={`badge ${STATE_CLASS[server.connectionState]}`}>{STATE_LABEL[server.connectionState]}</span>
        </span>
      </div>
      <McpServerFacts server={server} />
      {server.detail && <p class="detail">{server.detail}</p>}
      {server.canEdit && <McpSwitches server={server} apply={apply} />}
      {server.canEdit && server.authType === "oauth" && <McpSignIn server={server} />}
      <div class="row-actions">
        <button
          type="button"
          class="quiet-button small"
          disabled={probe.busy}
          onClick={() => probe.run(() => apply(() => api<McpServer>("POST", `${path}/probe`)))}
        >
          {probe.busy ? "Probing…" : "Probe now"}
        </button>
        {server.canEdit && (
          <button type="button" class="quiet-button small" aria-expanded={step === "edit"} onClick={() => toggle("edit")}>
            Edit
          </button>
        )}
        {server.canRemove && (
          <button type="button" class="quiet-button small" aria-expanded={step === "delete"} disabled={removal.busy} onClick={() => toggle("delete")}>
            Delete
          </button>
        )}
      </div>
      {step === "edit" && <McpServerForm label={`Edit ${server.name}`} submitLabel="Save" server={server} save={save} onCancel={() => setStep(null)} />}
      {step === "delete" && (
        <ConfirmStep
          question={`Delete ${server.name}?`}
          busy={removal.busy}
          small
          onConfirm={() => removal.run(() => remove(server.id))}
          onCancel={() => setStep(null)}
        />
      )}
      <Alert error={probe.error} />
      <Alert error={removal.error} />
    </li>
  );
}
