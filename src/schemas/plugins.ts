import { Type, type Static } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.ts";

const PluginId = Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9._-]*$", description: "Lower-case letters, digits, `.`, `_`, `-`." });
/** A path the plugin's HTTP server answers at: absolute, no `..`. */
const ServedPath = Type.String({ minLength: 1, maxLength: 512, pattern: "^/(?!.*(^|/)\\.\\.(/|$))[^\\s?#]*$" });
const Argv = Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { minItems: 1, maxItems: 64 });

export const PluginPane = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9._-]+$" }),
    title: Type.String({ maxLength: 200 }),
    path: ServedPath,
    iconPath: Type.String({ maxLength: 512 }),
  },
  { additionalProperties: false },
);

export const PluginTool = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" }),
    description: Type.String({ maxLength: 2000 }),
    path: ServedPath,
    inputSchema: Type.Record(Type.String(), Type.Unknown(), { description: "A JSON Schema for the tool's input object." }),
  },
  { additionalProperties: false },
);

export const SetupCommand = Type.Object(
  {
    argv: Argv,
    platforms: Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
      description: "`linux`, `darwin`, `win32`, or with the CPU (`linux-x64`); empty for all.",
    }),
  },
  { additionalProperties: false },
);

export const RequiredExecutable = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9._+-]+$" }),
    installHint: Type.String({ maxLength: 500 }),
    helpUrl: Type.String({ maxLength: 500 }),
  },
  { additionalProperties: false },
);

/** `atrium-plugin.json` at the root of a plugin's repository or folder (docs/plugins.md). */
export const PluginManifest = Type.Object(
  {
    id: PluginId,
    name: Type.String({ minLength: 1, maxLength: 100 }),
    version: Type.String({ minLength: 1, maxLength: 64, pattern: "^\\d+\\.\\d+\\.\\d+([-+][0-9A-Za-z.-]+)?$" }),
    description: Type.String({ maxLength: 2000 }),
    iconPath: Type.String({ maxLength: 512 }),
    ageRating: Type.Number({ minimum: 0, maximum: 21 }),
    minServiceVersion: Type.String({ pattern: "^\\d+\\.\\d+\\.\\d+" }),
    runCommand: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
      minItems: 1,
      maxItems: 64,
      description: "The program and its arguments, run without a shell in the plugin's folder; it serves HTTP on $ATRIUM_PLUGIN_PORT.",
    }),
    setupCommands: Type.Array(SetupCommand, { maxItems: 32 }),
    requirements: Type.Object({ executables: Type.Array(RequiredExecutable, { maxItems: 32 }) }, { additionalProperties: false }),
    panes: Type.Array(PluginPane, { maxItems: 32 }),
    tools: Type.Array(PluginTool, { maxItems: 64 }),
  },
  { additionalProperties: false },
);
export type PluginManifest = Static<typeof PluginManifest>;

export const PluginState = Type.Union([Type.Literal("stopped"), Type.Literal("starting"), Type.Literal("running"), Type.Literal("failed")], {
  description:
    "`stopped`: not enabled. `starting`: its process starts or restarts after a crash. `running`: it answers. `failed`: it crashed too often (`lastError`); restart it.",
});

const shown = {
  ageRating: Type.Number(),
  consentKey: Type.String({ description: "A digest of everything consented to: commands, requirements, panes, tools, version and source commit." }),
  sourceRepo: Type.String({ description: "The git URL or local folder it came from." }),
  id: Type.String(),
  name: Type.String(),
  version: Type.String(),
  description: Type.String(),
  iconPath: Type.String(),
  panes: Type.Array(PluginPane),
  tools: Type.Array(PluginTool),
};

export const Plugin = Type.Object(
  {
    ...shown,
    enabled: Type.Boolean(),
    canRestore: Type.Boolean({ description: "The version before the last update is kept: POST /v1/plugins/{id}/restore goes back to it." }),
    source: Type.Union([Type.Literal("managed")]),
    path: Type.String({ description: "The installed version's folder." }),
    state: PluginState,
    openPaneCount: Type.Integer({ minimum: 0 }),
    lastError: Nullable(Type.String({ description: "Why it last crashed, failed a health check or could not start." })),
    sourceCommit: Nullable(Type.String()),
    installedAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: "Plugin" },
);
export type Plugin = Static<typeof Plugin>;

export const PluginList = Type.Object({ plugins: Type.Array(Plugin) });
export type PluginList = Static<typeof PluginList>;

export const PluginDiscovery = Type.Object(
  {
    ...shown,
    installCommand: Type.String({ description: "What installing runs on this machine: its setup commands, in order, or nothing." }),
    setupCommands: Type.Array(SetupCommand),
    minServiceVersion: Type.String(),
    requirements: Type.Object({ executables: Type.Array(RequiredExecutable) }),
    runCommand: Type.String({ description: "What runs it, shown as one line (it is run without a shell)." }),
    alreadyInstalled: Type.Boolean(),
    sourceCommit: Nullable(Type.String()),
  },
  { $id: "PluginDiscovery" },
);
export type PluginDiscovery = Static<typeof PluginDiscovery>;

export const DiscoverPluginBody = Type.Object({ source: Type.String({ minLength: 1, maxLength: 2048 }) }, { additionalProperties: false });
export const InstallPluginBody = Type.Object(
  { source: Type.String({ minLength: 1, maxLength: 2048 }), consentKey: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);
export const EnablePluginBody = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
export const ApplyPluginUpdateBody = Type.Object({ planId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });

export const PluginUpdatePlan = Type.Object(
  {
    planId: Type.String(),
    fromVersion: Type.String(),
    toVersion: Type.String(),
    consentKey: Type.String({ description: "The new version's: what applying consents to." }),
    changes: Type.Array(Type.String(), { description: "What differs in what is consented to (commands, requirements, panes, tools, version, commit)." }),
    expiresAt: Timestamp,
  },
  { $id: "PluginUpdatePlan" },
);
export type PluginUpdatePlan = Static<typeof PluginUpdatePlan>;

export const OpenedPane = Type.Object(
  {
    url: Type.String({ description: "Load it in a web view without the bearer header; the ticket in it is good for this plugin and pane only." }),
    ticket: Type.String(),
    expiresAt: Timestamp,
  },
  { $id: "OpenedPane" },
);
export type OpenedPane = Static<typeof OpenedPane>;

export const PluginEvents = {
  /** A plugin was installed, changed state, was enabled or disabled, updated or restored: as GET /v1/plugins shows it. */
  "plugin.updated": Type.Object({ plugin: Plugin }),
  /** A plugin was uninstalled. */
  "plugin.deleted": Type.Object({ id: Type.String() }),
  /** An install or update step: `setup` runs a command (its output in the terminal log), then `done` or `failed`. */
  "plugin.install.progress": Type.Object({
    pluginId: Type.String(),
    step: Type.Union([Type.Literal("fetching"), Type.Literal("setup"), Type.Literal("done"), Type.Literal("failed")]),
    detail: Type.String(),
    terminalId: Nullable(Type.String()),
  }),
};
