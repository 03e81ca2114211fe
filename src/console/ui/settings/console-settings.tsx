import { createContext, type ComponentChildren } from "preact";
import { useContext, useEffect, useMemo, useState } from "preact/hooks";
import type { SyncNamespace, SyncTimestamp } from "../../../schemas/sync.ts";
import { api } from "../shared/api.ts";
import { followThenRead } from "../shared/event-stream.ts";

/** The sync namespace holding the console's settings: every browser, and every paired machine, shares it. */
export const SETTINGS_NAMESPACE = "console.settings";
/** This browser's id in the settings' timestamps, so two browsers' writes at the same millisecond are ordered. */
const DEVICE_KEY = "atrium.deviceId";

export type Theme = "system" | "light" | "dark";

export interface ConsoleSettings {
  theme: Theme;
  /** Enter sends a prompt (Shift+Enter for a new line); otherwise Ctrl/Cmd+Enter does. */
  enterSends: boolean;
}

export const DEFAULT_SETTINGS: ConsoleSettings = { theme: "system", enterSends: false };

interface SettingsContext {
  settings: ConsoleSettings;
  change<K extends keyof ConsoleSettings>(key: K, value: ConsoleSettings[K]): Promise<void>;
}

const Settings = createContext<SettingsContext>({ settings: DEFAULT_SETTINGS, change: async () => {} });

export const useSettings = () => useContext(Settings);

function deviceId(): string {
  let id = localStorage.getItem(DEVICE_KEY);
  if (!id) {
    id = `console-${crypto.randomUUID()}`;
    localStorage.setItem(DEVICE_KEY, id);
  }
  return id;
}

/** The settings a namespace holds, over the defaults; a value of the wrong type is left at its default. */
function settingsOf(namespace: SyncNamespace): ConsoleSettings {
  const settings = { ...DEFAULT_SETTINGS };
  for (const entry of namespace.entries) {
    if (entry.deleted) continue;
    if (entry.key === "theme" && (entry.value === "system" || entry.value === "light" || entry.value === "dark")) settings.theme = entry.value;
    if (entry.key === "enterSends" && typeof entry.value === "boolean") settings.enterSends = entry.value;
  }
  return settings;
}

/**
 * A write's timestamp: after every timestamp this browser has seen in the namespace, so its change wins
 * over what it was shown even when this machine's clock is behind another's.
 */
function nextTimestamp(seen: SyncTimestamp[]): SyncTimestamp {
  const newest = Math.max(0, ...seen.map((timestamp) => timestamp.wallMs));
  const now = Date.now();
  if (now > newest) return { wallMs: now, counter: 0, deviceId: deviceId() };
  const counter = Math.max(0, ...seen.filter((timestamp) => timestamp.wallMs === newest).map((timestamp) => timestamp.counter)) + 1;
  return { wallMs: newest, counter, deviceId: deviceId() };
}

/** Reads the settings, follows their changes from anywhere, and applies the theme to the page. */
export function SettingsProvider({ children }: { children: ComponentChildren }) {
  const [namespace, setNamespace] = useState<SyncNamespace>({ namespace: SETTINGS_NAMESPACE, entries: [] });
  const path = `/v1/sync/${SETTINGS_NAMESPACE}`;

  useEffect(() => {
    const read = () => api<SyncNamespace>("GET", path).then(setNamespace);
    // Without its settings the console still works, with the defaults: a failure is not shown on the
    // page (the bus still writes an event's to the browser's console).
    const ignore = () => {};
    return followThenRead(
      {
        kinds: ["sync.changed"],
        onEvents(events) {
          if (events.some((event) => (event.payload as { namespace: string }).namespace === SETTINGS_NAMESPACE)) read().catch(ignore);
        },
        onProblem: ignore,
      },
      read,
      ignore,
    );
  }, []);

  const settings = useMemo(() => settingsOf(namespace), [namespace]);
  useEffect(() => {
    document.documentElement.dataset.theme = settings.theme;
  }, [settings.theme]);

  const context = useMemo<SettingsContext>(
    () => ({
      settings,
      change: async (key, value) => {
        const entry = { key, value, timestamp: nextTimestamp(namespace.entries.map((listed) => listed.timestamp)), deleted: false };
        // Shown at once; the server's answer (or, when it refuses, what it holds) replaces it.
        setNamespace({ ...namespace, entries: [...namespace.entries.filter((listed) => listed.key !== key), entry] });
        try {
          setNamespace(await api<SyncNamespace>("PUT", path, { entries: [{ key, value, timestamp: entry.timestamp }] }));
        } catch (failure) {
          setNamespace(namespace);
          throw failure;
        }
      },
    }),
    [settings, namespace],
  );
  return <Settings.Provider value={context}>{children}</Settings.Provider>;
}
