import { PluginCard } from "./plugin-card.tsx";
import { PluginDiscoveryForm } from "./plugin-discovery.tsx";
import { PaneView, useOpenPanes } from "./plugin-pane.tsx";
import { Alert } from "../shared/use-action.tsx";
import { usePlugins } from "./use-plugins.ts";
import { PageHeading } from "../shell/page-heading.tsx";

/** The installed plugins, followed live: adding one with consent, changing each, and their panes shown in place. */
export function PluginsPage() {
  const { plugins, progress, error, apply, add, forget } = usePlugins();
  const panes = useOpenPanes(plugins);

  return (
    <section class="plugins-page">
      <header class="page-header">
        <PageHeading text="Plugins" />
      </header>
      <PluginDiscoveryForm progress={progress} onInstalled={add} />
      {panes.panes.map((pane) => (
        <PaneView key={pane.ticket} pane={pane} apply={apply} onClosed={() => panes.remove(pane.ticket)} />
      ))}
      <Alert error={error} />
      {plugins === null ? (
        !error && <p class="quiet">Loading…</p>
      ) : plugins.length === 0 ? (
        <p class="quiet">No plugins yet: discover one from its git URL or folder.</p>
      ) : (
        <ul class="cards plugin-cards">
          {plugins.map((plugin) => (
            <PluginCard key={plugin.id} plugin={plugin} apply={apply} onRemoved={forget} onOpened={panes.show} />
          ))}
        </ul>
      )}
    </section>
  );
}
