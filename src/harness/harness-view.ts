import type { Static } from "@sinclair/typebox";
import type { Harness, HarnessAccount, InstallMethod } from "../schemas/harnesses.ts";
import type { AuthProbe, HarnessDefinition } from "./harness-definition.ts";
import type { AccountProfile } from "./harness-accounts.ts";
import type { Readiness } from "./detection.ts";
import { isNewer, type LatestVersion } from "./latest-versions.ts";

/** What a probe learned, or `checking` while one runs; one shape, so readers need no narrowing. */
export type AuthView = Omit<AuthProbe, "state"> & { state: AuthProbe["state"] | "checking" };

/** Everything known of one harness that is not stored: what the last scan and operation found. */
export interface HarnessState {
  readiness: Readiness;
  /** Per account id. */
  auth: Map<string, AuthView>;
  checkedAt: string | null;
  lifecycle: Harness["lifecycle"];
}

export interface HarnessViewInput {
  definition: HarnessDefinition;
  state: HarnessState;
  profiles: AccountProfile[];
  activeAccountId: string;
  /** The user's enable/disable override, if any. */
  override: boolean | undefined;
  installMethods: Static<typeof InstallMethod>[];
  latest: LatestVersion | undefined;
}

const CHECKING: AuthView = { state: "checking" };

function loginDetail(definition: HarnessDefinition, profile: AccountProfile, auth: AuthView): string | null {
  if (auth.detail) return auth.detail;
  if (auth.state !== "unauthenticated") return null;
  const instruction = loginInstruction(definition, profile);
  return instruction ? `not logged in; to log in, ${instruction}` : null;
}

/** How the user logs this account in (Atrium does not drive vendors' browser logins). */
export function loginInstruction(definition: HarnessDefinition, profile: AccountProfile): string | null {
  if (!definition.loginCommand) return null;
  const prefix = profile.configHome && definition.configHomeEnv ? `${definition.configHomeEnv}='${profile.configHome}' ` : "";
  return `run in a terminal: ${prefix}${definition.loginCommand.join(" ")}`;
}

function accountView(input: HarnessViewInput, profile: AccountProfile): HarnessAccount {
  const auth = input.state.auth.get(profile.id) ?? CHECKING;
  return {
    id: profile.id,
    harnessId: profile.harnessId,
    profileKind: profile.profileKind,
    label: profile.label,
    email: auth.email ?? null,
    organizationId: auth.organizationId ?? null,
    authMethod: auth.authMethod ?? null,
    authState: auth.state,
    isActive: profile.id === input.activeAccountId,
    selectionScope: "shared",
    // Logging in and out happens in the harness's own CLI (the detail says how), not through Atrium.
    canLogin: false,
    canLogout: false,
    lastCheckedAt: input.state.checkedAt,
    detail: loginDetail(input.definition, profile, auth),
  };
}

function updateInfo(input: HarnessViewInput): Harness["updateInfo"] {
  const { definition, state, latest } = input;
  const installedVersion = state.readiness.version;
  const base = {
    installedVersion,
    source: definition.npmPackage ? `npm:${definition.npmPackage}` : null,
    installOrigin: null,
    channel: definition.npmPackage ? "latest" : null,
  };
  if (!definition.npmPackage) {
    const notes = definition.launchKind === "builtin" ? "updated together with Atrium" : "Atrium does not know where this harness is published";
    return { ...base, latestVersion: null, updateAvailable: false, checkedAt: null, notes };
  }
  if (!latest) return { ...base, latestVersion: null, updateAvailable: false, checkedAt: null, notes: "the latest version has not been checked yet" };
  const updateAvailable = isNewer(latest.version, installedVersion);
  return {
    ...base,
    latestVersion: latest.version,
    updateAvailable,
    checkedAt: latest.checkedAt,
    notes: latest.notes ?? (installedVersion === null ? "not installed" : updateAvailable ? null : "up to date"),
  };
}

/** The Harness a client sees, put together from the definition, the scan's state and the settings. */
export function harnessView(input: HarnessViewInput): Harness {
  const { definition, state, override } = input;
  const { readiness } = state;
  const installed = readiness.state === "ready";
  const desiredEnabled = override ?? true;
  const accounts = installed ? input.profiles.map((profile) => accountView(input, profile)) : [];
  const active = accounts.find((account) => account.isActive);
  const activeAuth = state.auth.get(input.activeAccountId) ?? CHECKING;
  return {
    id: definition.id,
    name: definition.name,
    symbolName: definition.symbolName,
    source: definition.source,
    launchKind: definition.launchKind,
    enabled: desiredEnabled && installed,
    desiredEnabled,
    settings: {
      global: { enabled: true, installed },
      override: override === undefined ? null : { enabled: override, installed },
    },
    readiness: { state: readiness.state, detail: readiness.detail, path: readiness.path, version: readiness.version },
    auth: {
      state: installed ? activeAuth.state : state.checkedAt === null ? "checking" : "unknown",
      activeAccountId: active?.id ?? null,
      accounts,
      loginMethods: definition.loginMethods,
      supportsMultipleAccounts: definition.configHomeEnv !== undefined,
      detail: installed ? (active?.detail ?? null) : `${definition.name} is not ready`,
    },
    installHint: definition.installHint,
    installMethods: input.installMethods,
    updateInfo: updateInfo(input),
    lifecycle: state.lifecycle,
  };
}
