import { Type, type Static } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.ts";

export const ReadinessState = Type.Union([Type.Literal("ready"), Type.Literal("missing"), Type.Literal("error")], {
  description: "`ready`: found and usable; `missing`: not on the service's PATH; `error`: found but unusable (see detail).",
});

export const AuthState = Type.Union([Type.Literal("checking"), Type.Literal("authenticated"), Type.Literal("unauthenticated"), Type.Literal("unknown")], {
  description: "`checking` while a probe runs; `unknown` when the harness has no way to tell.",
});

export const LoginMethod = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    kind: Type.Union([Type.Literal("browser"), Type.Literal("api_key"), Type.Literal("device_code")]),
  },
  { $id: "LoginMethod" },
);

export const InstallMethod = Type.Object(
  {
    id: Type.String(),
    kind: Type.Union([Type.Literal("npm"), Type.Literal("brew")]),
    label: Type.String(),
    command: Type.String({ description: "The command the install runs, for display." }),
    available: Type.Boolean({ description: "Whether the tool for this method is on the PATH." }),
    recommended: Type.Boolean(),
  },
  { $id: "InstallMethod" },
);

export const HarnessAccount = Type.Object(
  {
    id: Type.String(),
    harnessId: Type.String(),
    profileKind: Type.Union([Type.Literal("default"), Type.Literal("profile")], {
      description: "`default`: the harness's own config home; `profile`: one Atrium made.",
    }),
    label: Type.String(),
    email: Nullable(Type.String()),
    organizationId: Nullable(Type.String()),
    authMethod: Nullable(Type.String()),
    authState: AuthState,
    isActive: Type.Boolean(),
    selectionScope: Type.Union([Type.Literal("shared")], { description: "The active account applies to every client." }),
    canLogin: Type.Boolean(),
    canLogout: Type.Boolean(),
    lastCheckedAt: Nullable(Timestamp),
    detail: Nullable(Type.String()),
  },
  { $id: "HarnessAccount" },
);
export type HarnessAccount = Static<typeof HarnessAccount>;

export const HarnessAuth = Type.Object(
  {
    state: AuthState,
    activeAccountId: Nullable(Type.String()),
    accounts: Type.Array(HarnessAccount),
    loginMethods: Type.Array(LoginMethod),
    supportsMultipleAccounts: Type.Boolean(),
    detail: Nullable(Type.String()),
  },
  { $id: "HarnessAuth" },
);
export type HarnessAuth = Static<typeof HarnessAuth>;

const EnabledInstalled = Type.Object({ enabled: Type.Boolean(), installed: Type.Boolean() });

export const Harness = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    symbolName: Type.String({ description: "An icon name for clients." }),
    source: Type.Union([Type.Literal("builtin"), Type.Literal("config")], {
      description: "`builtin`: from Atrium's registry; `config`: declared by the user in config.json.",
    }),
    launchKind: Type.Union([Type.Literal("executable"), Type.Literal("builtin")], {
      description: "`executable`: an ACP command on the PATH; `builtin`: inside the Atrium binary (echo).",
    }),
    enabled: Type.Boolean({ description: "desiredEnabled, and ready." }),
    desiredEnabled: Type.Boolean({ description: "What the user chose (settings.override, else settings.global)." }),
    settings: Type.Object({
      global: EnabledInstalled,
      override: Nullable(EnabledInstalled),
    }),
    readiness: Type.Object({
      state: ReadinessState,
      detail: Nullable(Type.String()),
      path: Nullable(Type.String()),
      version: Nullable(Type.String()),
    }),
    auth: HarnessAuth,
    installHint: Type.String(),
    installMethods: Type.Array(InstallMethod),
    updateInfo: Type.Object({
      installedVersion: Nullable(Type.String()),
      latestVersion: Nullable(Type.String()),
      updateAvailable: Type.Boolean(),
      source: Nullable(Type.String()),
      installOrigin: Nullable(Type.String()),
      channel: Nullable(Type.String()),
      checkedAt: Nullable(Timestamp),
      notes: Nullable(Type.String()),
    }),
    lifecycle: Type.Object({
      phase: Type.Union([Type.Literal("idle"), Type.Literal("installing"), Type.Literal("updating"), Type.Literal("failed")]),
      targetVersion: Nullable(Type.String()),
      methodId: Nullable(Type.String()),
      terminalId: Nullable(Type.String()),
      error: Nullable(Type.String()),
      startedAt: Nullable(Timestamp),
    }),
  },
  { $id: "Harness" },
);
export type Harness = Static<typeof Harness>;

export const HarnessList = Type.Array(Harness);

export const UpdateHarnessBody = Type.Object({
  enabled: Type.Union([Type.Boolean(), Type.Null()], { description: "true/false overrides; null drops the override." }),
});

export const Terminal = Type.Object(
  {
    id: Type.String(),
    subjectId: Type.String({ description: "What the command is for, e.g. the harness id." }),
    command: Type.String(),
    startedAt: Timestamp,
    finishedAt: Nullable(Timestamp),
    exitCode: Nullable(Type.Integer()),
    output: Type.String({ description: "Everything the command wrote, stdout and stderr interleaved by line." }),
    truncated: Type.Boolean({ description: "The start of the output was dropped to keep the last 256 KiB." }),
  },
  { $id: "Terminal" },
);

export const LifecycleBody = Type.Object({
  methodId: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: "The recommended method when absent." })),
});

export const AccountLabelBody = Type.Object({
  label: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], { description: "null gives back the default label." })),
});

export const LoginMethodKind = Type.Union([Type.Literal("api_key"), Type.Literal("oauth")]);

export const ProviderLoginAttempt = Type.Object(
  {
    id: Type.String(),
    providerId: Type.String(),
    method: LoginMethodKind,
    state: Type.Union([Type.Literal("running"), Type.Literal("succeeded"), Type.Literal("failed"), Type.Literal("cancelled")]),
    prompt: Nullable(
      Type.Object(
        {
          id: Type.String(),
          type: Type.Union([Type.Literal("text"), Type.Literal("secret"), Type.Literal("select")], {
            description: "`secret`: a value the client must mask; it is never stored by Atrium nor logged.",
          }),
          message: Type.String(),
          placeholder: Nullable(Type.String()),
          options: Type.Array(Type.Object({ id: Type.String(), label: Type.String(), description: Nullable(Type.String()) })),
        },
        { description: "What the attempt waits for; answer it with …/login/{attemptId}/respond. Null when nothing is asked." },
      ),
    ),
    event: Nullable(
      Type.Object(
        {
          type: Type.Union([Type.Literal("info"), Type.Literal("device_code")]),
          message: Type.String(),
          url: Nullable(Type.String()),
          userCode: Nullable(Type.String()),
          verificationUrl: Nullable(Type.String()),
        },
        { description: "The latest thing to show the user: for oauth, the code to enter at the verification URL." },
      ),
    ),
    error: Nullable(Type.String()),
    startedAt: Timestamp,
    finishedAt: Nullable(Timestamp),
  },
  { $id: "ProviderLoginAttempt" },
);
export type ProviderLoginAttempt = Static<typeof ProviderLoginAttempt>;

export const StartProviderLoginBody = Type.Object({ method: LoginMethodKind });

export const RespondProviderLoginBody = Type.Object({
  value: Type.String({ minLength: 1, maxLength: 4096, description: "The answer to the attempt's prompt (the API key)." }),
});

/** The events the harnesses module publishes, with their payloads. */
export const HarnessEvents = {
  "harness.updated": Type.Object({ harness: Harness }),
  /** Subject: the terminal id. A batch of lines a command the server runs (an install) wrote. */
  "terminal.output": Type.Object({
    terminalId: Type.String(),
    subjectId: Type.String({ description: "What the command is for, e.g. the harness id." }),
    text: Type.String(),
  }),
};
