import type { Static } from "@sinclair/typebox";
import { useState } from "preact/hooks";
import type { Plugin, PluginEvents, PluginList } from "../../../schemas/plugins.ts";
import { api } from "../shared/api.ts";
import { type ListSource, useLiveList } from "../shared/use-live-list.ts";

export type InstallProgress = Static<(typeof PluginEvents)["plugin.install.progress"]>;

/** Shows the plugin a call answers with, e.g. `apply(() => api<Plugin>("PATCH", …))`. */
export type ApplyPlugin = (call: () => Promise<Plugin>) => Promise<void>;

/**
 * The installed plugins, followed live through `plugin.*` (state, enabling, panes opened and closed,
 * updates, uninstalls), with the latest install step told for each plugin id.
 */
export function usePlugins() {
  const [progress, setProgress] = useState<Record<string, InstallProgress>>({});
  // Made once: the live list reads its source once; the progress setter never changes.
  const [source] = useState<ListSource<Plugin>>(() => ({
    kinds: ["plugin.*"],
    readAll: async () => (await api<PluginList>("GET", "/v1/plugins")).plugins,
    apply(event, { keep, forget }) {
      if (event.kind === "plugin.updated") {
        keep((event.payload as { plugin: Plugin }).plugin);
      } else if (event.kind === "plugin.deleted") forget((event.payload as { id: string }).id);
      else if (event.kind === "plugin.install.progress") {
        const step = event.payload as InstallProgress;
        setProgress((current) => ({ ...current, [step.pluginId]: step }));
      }
    },
    // As the server lists them.
    compare: (a, b) => a.id.localeCompare(b.id),
  }));
  const list = useLiveList(source);
  // An answer can be older than an event that overtook it (enabled, the plugin answers before the PATCH
  // does): where the stream spoke while the call ran, the stream's state stands.
  const apply: ApplyPlugin = (call) => list.keepAnswer(call);
  return { plugins: list.items, error: list.error, add: list.add, forget: list.forget, apply, progress };
}
