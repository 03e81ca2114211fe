import { useEffect, useRef, useState } from "preact/hooks";
import { PANE_SANDBOX_FLAGS } from "../../../plugins/pane-sandbox.ts";
import type { Plugin } from "../../../schemas/plugins.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import type { ApplyPlugin } from "./use-plugins.ts";

/** A pane opened from this page: its plugin, what to call it, and the ticketed URL the server gave. */
export interface ShownPane {
  pluginId: string;
  title: string;
  url: string;
  ticket: string;
}

const closePath = (pane: ShownPane) => `/v1/plugins/${encodeURIComponent(pane.pluginId)}/panes/${encodeURIComponent(pane.ticket)}`;

/**
 * The panes open on this page, newest first. A pane whose plugin is gone was closed by the server; the
 * ones still open when the page is left are closed, so their tickets do not linger.
 */
export function useOpenPanes(plugins: Plugin[] | null) {
  const [panes, setPanes] = useState<ShownPane[]>([]);
  const open = useRef(panes);
  open.current = panes;

  useEffect(
    () => () => {
      for (const pane of open.current) api("DELETE", closePath(pane)).catch(() => undefined);
    },
    [],
  );
  useEffect(() => {
    if (plugins) setPanes((current) => current.filter((pane) => plugins.some((plugin) => plugin.id === pane.pluginId)));
  }, [plugins]);

  return {
    panes,
    show: (pane: ShownPane) => setPanes((current) => [pane, ...current]),
    remove: (ticket: string) => setPanes((current) => current.filter((pane) => pane.ticket !== ticket)),
  };
}

/** One open pane in a frame of its own, with the button that closes it on the server. */
export function PaneView({ pane, apply, onClosed }: { pane: ShownPane; apply: ApplyPlugin; onClosed: () => void }) {
  const { busy, error, run } = useAction();
  const view = useRef<HTMLElement>(null);
  // Opened from a card further down the page: brought into sight.
  useEffect(() => view.current?.scrollIntoView({ block: "start" }), []);

  return (
    <section class="panel plugin-pane" aria-label={pane.title} ref={view}>
      <div class="card-title">
        <h3>{pane.title}</h3>
        <button
          type="button"
          class="quiet-button small"
          disabled={busy}
          onClick={() =>
            run(async () => {
              await apply(() => api<Plugin>("DELETE", closePath(pane)));
              onClosed();
            })
          }
        >
          Close<span class="visually-hidden"> {pane.title}</span>
        </button>
      </div>
      <Alert error={error} />
      <iframe src={pane.url} title={pane.title} sandbox={PANE_SANDBOX_FLAGS} referrerpolicy="no-referrer" />
    </section>
  );
}
