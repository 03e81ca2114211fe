import { existsSync, readFileSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export const ConfigFile = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    logLevel: Type.Optional(Type.Union([Type.Literal("debug"), Type.Literal("info"), Type.Literal("warn"), Type.Literal("error")])),
    harnessUpdateCheck: Type.Optional(
      Type.Boolean({
        description:
          "Look up harnesses' latest versions in the npm registry npm is configured with, when a client reads them (default true); false for offline machines.",
      }),
    ),
    agentIdleMinutes: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: "Stop a session's agent after this many idle minutes (default 30); the next prompt starts it again." }),
    ),
    eventRetentionDays: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description:
          "Events older than this many days leave the event log (default 30); what the state needs is kept. A client resuming from behind that gets 410 and re-reads the state.",
      }),
    ),
    eventLogMaxMB: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description: "Past this many megabytes of data in the database (default 512), the oldest events leave the log too, however young.",
      }),
    ),
    eventCompactionMinutes: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description: "How often the event log is compacted (default 60); the first pass runs a minute after the start, or sooner if this is shorter.",
      }),
    ),
    tls: Type.Optional(
      Type.Object(
        {
          certFile: Type.String({ minLength: 1, description: "The certificate (PEM, with its chain) to serve https with." }),
          keyFile: Type.String({ minLength: 1, description: "Its private key (PEM)." }),
        },
        { description: "Serve https (the API, the console, health from the first moment); see docs/remote-access.md for where a certificate comes from." },
      ),
    ),
    allowedHosts: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          "Host names (with or without a port) a server bound to loopback also answers to, e.g. behind a local reverse proxy; other names are refused 403 (DNS rebinding).",
      }),
    ),
    githubUrl: Type.Optional(Type.String({ pattern: "^https?://", description: "GitHub or GitHub Enterprise, for OpenCode's github-copilot sign-in." })),
    updateBaseUrl: Type.Optional(
      Type.String({
        pattern: "^((https?|file)://|/)",
        description: "Where the release manifests (`<channel>.json`) are published: https://…, file://… or a folder; http:// only on loopback.",
      }),
    ),
    updateChannel: Type.Optional(
      Type.Union([Type.Literal("stable"), Type.Literal("alpha")], { description: "stable (default), or alpha: the newer of alpha and stable." }),
    ),
    updateCheckIntervalHours: Type.Optional(
      Type.Number({ minimum: 0, description: "Hours between update checks (default 6); 0 turns automatic checks off, at start-up too." }),
    ),
    updateRestartTimeoutSeconds: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: "How long a new build has to become healthy after an update before it is rolled back (default 60)." }),
    ),
    machineId: Type.Optional(
      Type.String({
        pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,55}$",
        description:
          "This machine's id among paired machines (default: derived from /etc/machine-id). Set it for a second server on one host, which would otherwise share the id.",
      }),
    ),
    machineName: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: "The name paired machines show for this one (default: the host name)." }),
    ),
    publicUrl: Type.Optional(
      Type.String({
        pattern: "^https?://",
        description: "Where paired machines reach this server, e.g. https://laptop.example.net:7433 (default: the address it listens on).",
      }),
    ),
    pushLongTurnSeconds: Type.Optional(
      Type.Number({ minimum: 0, description: "A turn that ran longer than this many seconds (default 60) pushes a notice when it ends (Web Push)." }),
    ),
    maxTerminals: Type.Optional(Type.Integer({ minimum: 1, description: "How many terminals may run at once (default 16); one more is refused with 409." })),
    terminalsOverPlainHttp: Type.Optional(
      Type.Boolean({
        description:
          "Allow terminals while the server listens beyond loopback without TLS (default false): every keystroke and screen would cross the network in clear text.",
      }),
    ),
    pushSubject: Type.Optional(
      Type.String({
        pattern: "^(mailto:[^@\\s]+@[^@\\s]+|https://\\S+)$",
        description:
          "The contact sent to push services with each Web Push (the VAPID subject): your mailto: address or an https: URL (default mailto:atrium@example.com; Apple's service refuses @localhost).",
      }),
    ),
    harnesses: Type.Optional(
      Type.Array(
        Type.Object({
          id: Type.String({ pattern: "^[a-z0-9][a-z0-9-]{0,39}$" }),
          name: Type.String({ minLength: 1 }),
          executable: Type.String({ minLength: 1 }),
          acpArgs: Type.Optional(Type.Array(Type.String())),
          versionArgs: Type.Optional(Type.Array(Type.String())),
          quirks: Type.Optional(
            Type.Object(
              {
                selfNotice: Type.Optional(
                  Type.String({
                    minLength: 1,
                    description:
                      "A regular expression for message chunks in which the agent speaks about itself (a warning, a fallback): shown as the session's notice, not as reply text.",
                  }),
                ),
                costPerProcess: Type.Optional(Type.Boolean({ description: "Its usage_update cost counts from its process's start, not the session's." })),
                turnTokensOfLastCall: Type.Optional(
                  Type.Boolean({ description: "The token counts in its prompt answer are the last model call's, not the turn's (they are then not counted)." }),
                ),
                readsFilesItself: Type.Optional(Type.Boolean({ description: "It is not offered fs/read_text_file and reads files itself." })),
                modelUnsureAfterLoad: Type.Optional(
                  Type.Boolean({ description: "After session/load it may run another model than it reports: the model is set again after each load." }),
                ),
                loadWipesInStartPeriodMs: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    description:
                      "A session/load in the period (this many ms, counted from the epoch) its session began in wipes that session: a load waits for a later period.",
                  }),
                ),
              },
              { description: "Where the agent's ACP stream departs from the protocol's meaning (docs/agents.md)." },
            ),
          ),
        }),
        { description: "Harnesses of your own: any ACP agent on the PATH." },
      ),
    ),
  },
  { additionalProperties: true },
);
export type ConfigFile = Static<typeof ConfigFile>;

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 7433;

/** Reads `config.json` from the data dir; a missing file is an empty config, a broken one an error. */
export function loadConfigFile(path: string): ConfigFile {
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const problem = Value.Errors(ConfigFile, parsed).First();
  if (problem) throw new Error(`${path}: ${problem.path || "the file"} ${problem.message.toLowerCase()}`);
  return parsed as ConfigFile;
}
