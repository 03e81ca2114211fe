import { useState } from "preact/hooks";
import type { Plugin, PluginDiscovery } from "../../../schemas/plugins.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import type { InstallProgress } from "./use-plugins.ts";
import { TextField } from "../shared/fields.tsx";

const listed = (names: string[]) => (names.length > 0 ? names.join(", ") : "none");

const progressText = (step: InstallProgress) => (step.step === "setup" ? `Running ${step.detail}` : step.detail);

/** Everything installing consents to, as the server read it from the source. */
function ConsentFacts({ found }: { found: PluginDiscovery }) {
  return (
    <dl class="facts">
      <dt>Source</dt>
      <dd class="plugin-source">
        {found.sourceRepo}
        {found.sourceCommit && ` at ${found.sourceCommit.slice(0, 12)}`}
      </dd>
      <dt>Age rating</dt>
      <dd>{found.ageRating}+</dd>
      <dt>Panes</dt>
      <dd>{listed(found.panes.map((pane) => pane.title))}</dd>
      <dt>Tools</dt>
      <dd>{listed(found.tools.map((tool) => `${tool.name} (${tool.description})`))}</dd>
      <dt>Needs</dt>
      <dd>{listed(found.requirements.executables.map((executable) => executable.name))}</dd>
      <dt>Installing runs</dt>
      <dd>
        <code>{found.installCommand || "nothing"}</code>
      </dd>
      <dt>It runs</dt>
      <dd>
        <code>{found.runCommand}</code>
      </dd>
    </dl>
  );
}

interface ConsentProps {
  found: PluginDiscovery;
  progress: InstallProgress | undefined;
  onInstalled: (plugin: Plugin) => void;
  onCancel: () => void;
}

/** What a plugin asks for, and the button that consents to exactly that (its consentKey). */
function PluginConsent({ found, progress, onInstalled, onCancel }: ConsentProps) {
  const { busy, error, run } = useAction();
  // A step from an earlier install of the same id is not this one's.
  const [earlier, setEarlier] = useState(progress);
  const install = () => {
    setEarlier(progress);
    return run(async () => onInstalled(await api<Plugin>("POST", "/v1/plugins/install", { source: found.sourceRepo, consentKey: found.consentKey })));
  };
  return (
    <section class="panel plugin-consent" aria-label={`What ${found.name} asks for`}>
      <h3>
        {found.name} {found.version}
      </h3>
      {found.description && <p>{found.description}</p>}
      <ConsentFacts found={found} />
      {found.alreadyInstalled ? (
        <p class="quiet">{found.name} is installed already: check for an update on its card.</p>
      ) : (
        <div class="row-actions">
          <button type="button" disabled={busy} onClick={install}>
            {busy ? "Installing…" : `Install ${found.name}`}
          </button>
          <button type="button" class="quiet-button" disabled={busy} onClick={onCancel}>
            Cancel
          </button>
        </div>
      )}
      {busy && progress && progress !== earlier && <p role="status">{progressText(progress)}</p>}
      <Alert error={error} />
    </section>
  );
}

/** Reads a plugin from a git URL or a folder without installing anything, then installs it with consent. */
export function PluginDiscoveryForm({ progress, onInstalled }: { progress: Record<string, InstallProgress>; onInstalled: (plugin: Plugin) => void }) {
  const [source, setSource] = useState("");
  const [found, setFound] = useState<PluginDiscovery | null>(null);
  const { busy, error, run } = useAction();
  const discover = () =>
    run(async () => {
      setFound(null);
      setFound(await api<PluginDiscovery>("POST", "/v1/plugins/discover-remote", { source: source.trim() }));
    });

  return (
    <div class="plugin-discovery">
      <form
        class="plugin-source-form"
        aria-label="Add a plugin"
        onSubmit={(event) => {
          event.preventDefault();
          void discover();
        }}
      >
        <TextField label="Git URL or folder of a plugin" value={source} required onValue={setSource} />
        <button type="submit" disabled={busy}>
          {busy ? "Reading…" : "Discover"}
        </button>
      </form>
      <Alert error={error} />
      {found && (
        <PluginConsent
          key={found.consentKey}
          found={found}
          progress={progress[found.id]}
          onInstalled={(plugin) => {
            setFound(null);
            setSource("");
            onInstalled(plugin);
          }}
          onCancel={() => setFound(null)}
        />
      )}
    </div>
  );
}
