import { useState } from "preact/hooks";
import type { OpenedPane, Plugin } from "../../../schemas/plugins.ts";
import { api } from "../shared/api.ts";
import type { ShownPane } from "./plugin-pane.tsx";
import { PluginUpdate } from "./plugin-update.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import type { ApplyPlugin } from "./use-plugins.ts";
import { ConfirmStep } from "../shared/confirm-button.tsx";

const STATE_LABELS: Record<Plugin["state"], string> = { stopped: "Stopped", starting: "Starting", running: "Running", failed: "Failed" };
const STATE_BADGES: Record<Plugin["state"], string> = { stopped: "", starting: "", running: "ready", failed: "error" };

const paneCount = (count: number) => (count === 1 ? "1 open pane" : `${count} open panes`);

interface PluginCardProps {
  plugin: Plugin;
  apply: ApplyPlugin;
  onRemoved: (id: string) => void;
  onOpened: (pane: ShownPane) => void;
}

/** One installed plugin: its state and source, its panes to open, and what can be done to it. */
export function PluginCard({ plugin, apply, onRemoved, onOpened }: PluginCardProps) {
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useAction();
  const path = `/v1/plugins/${encodeURIComponent(plugin.id)}`;

  const change = (method: string, suffix: string, body?: unknown) => run(() => apply(() => api<Plugin>(method, path + suffix, body)));
  const openPane = (pane: Plugin["panes"][number]) =>
    run(async () => {
      const opened = await api<OpenedPane>("POST", `${path}/panes/${encodeURIComponent(pane.type)}/open`);
      onOpened({ pluginId: plugin.id, title: `${plugin.name}: ${pane.title}`, url: opened.url, ticket: opened.ticket });
    });
  const uninstall = () =>
    run(async () => {
      await api("DELETE", path);
      onRemoved(plugin.id);
    });

  return (
    <li class="card plugin-card" data-plugin={plugin.id}>
      <div class="card-title">
        <h3>{plugin.name}</h3>
        <span class={`badge ${STATE_BADGES[plugin.state]}`}>{STATE_LABELS[plugin.state]}</span>
      </div>
      <p class="quiet">
        {plugin.version} · {plugin.enabled ? "enabled" : "disabled"} · {paneCount(plugin.openPaneCount)}
      </p>
      {plugin.description && <p>{plugin.description}</p>}
      <p class="plugin-source">{plugin.sourceRepo}</p>
      {plugin.lastError && <p class="detail error">{plugin.lastError}</p>}
      {plugin.enabled && plugin.panes.length > 0 && (
        <fieldset class="row-actions plugin-panes">
          <legend class="visually-hidden">Panes</legend>
          {plugin.panes.map((pane) => (
            <button key={pane.type} type="button" class="small" disabled={busy} onClick={() => openPane(pane)}>
              Open {pane.title}
            </button>
          ))}
        </fieldset>
      )}
      <div class="row-actions">
        <button type="button" class="quiet-button small" disabled={busy} onClick={() => change("PATCH", "", { enabled: !plugin.enabled })}>
          {plugin.enabled ? "Disable" : "Enable"}
        </button>
        {plugin.enabled && (
          <button type="button" class="quiet-button small" disabled={busy} onClick={() => change("POST", "/restart")}>
            Restart
          </button>
        )}
        <button type="button" class="quiet-button small" aria-expanded={confirming} disabled={busy} onClick={() => setConfirming(!confirming)}>
          Uninstall
        </button>
      </div>
      {confirming && (
        <ConfirmStep
          question={`Uninstall ${plugin.name}?`}
          note="Its process stops, its panes close and its folders are removed."
          busy={busy}
          small
          onConfirm={uninstall}
          onCancel={() => setConfirming(false)}
        />
      )}
      <Alert error={error} />
      <PluginUpdate plugin={plugin} path={path} apply={apply} />
    </li>
  );
}
