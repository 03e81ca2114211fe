import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { ServerInfo } from "../../../schemas/system.ts";
import { api } from "../shared/api.ts";
import { type Theme, useSettings } from "./console-settings.tsx";
import { SelectField } from "../shared/fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import { PhoneSignIn } from "./phone-sign-in.tsx";
import { PushNotifications } from "./push-notifications.tsx";
import { PageHeading } from "../shell/page-heading.tsx";

const THEMES: { value: Theme; label: string }[] = [
  { value: "system", label: "As the system" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

function Group({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="panel" aria-label={title}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

/** The console's own settings, kept on the server so every browser (and paired machine) shares them. */
export function SettingsPage() {
  const { settings, change } = useSettings();
  const action = useAction();
  const [info, setInfo] = useState<ServerInfo | null>(null);
  useEffect(() => {
    api<ServerInfo>("GET", "/v1/info").then(setInfo, () => {});
  }, []);
  return (
    <section class="settings">
      <header class="page-header">
        <PageHeading text="Settings" />
      </header>
      <Group title="Appearance">
        <SelectField
          label="Theme"
          value={settings.theme}
          choices={THEMES}
          disabled={action.busy}
          onValue={(theme) => action.run(() => change("theme", theme))}
        />
      </Group>
      <Group title="Prompts">
        <label class="check">
          <input
            type="checkbox"
            checked={settings.enterSends}
            disabled={action.busy}
            onChange={(event) => action.run(() => change("enterSends", event.currentTarget.checked))}
          />
          Enter sends the prompt (Shift+Enter starts a new line)
        </label>
      </Group>
      <Group title="Notifications">
        <PushNotifications />
      </Group>
      <Group title="Open on your phone">
        <PhoneSignIn />
      </Group>
      <Alert error={action.error} />
      {info && (
        <p class="quiet">
          Atrium {info.version} on {info.hostname}. These settings are shared by every browser signed in to this server and by its paired machines.
        </p>
      )}
    </section>
  );
}
