import { homedir } from "node:os";
import { join } from "node:path";
import type { UsageLimits } from "../schemas/sessions.ts";
import type { HarnessDefinition } from "./harness-definition.ts";
import { readCodexAccount } from "./codex-account.ts";
import { readCodexRateLimits } from "./codex-rate-limits.ts";

/** An account of a harness with the environment its commands run in. */
export interface AccountSpec {
  definition: HarnessDefinition;
  accountId: string;
  accountLabel: string;
  /** The account's environment: where its config home is. */
  env: Record<string, string | undefined>;
  /** How the user signs this account in, when the harness has a login command. */
  loginInstruction: string | null;
}

/**
 * An account's rate-limit windows and credits, where its harness keeps them on disk. Only Codex does
 * (in its session logs); for the others `state` is `unavailable` and `detail` says why.
 */
export function readUsageLimits(account: AccountSpec, now: Date): UsageLimits {
  const base = {
    harnessId: account.definition.id,
    accountId: account.accountId,
    accountLabel: account.accountLabel,
    accountEmail: null,
    plan: null,
    windows: [],
    credits: null,
    fetchedAt: now.toISOString(),
  };
  if (account.definition.id !== "codex") {
    return { ...base, state: "unavailable", detail: `${account.definition.name} does not expose its rate limits on disk or through its CLI` };
  }
  const codexHome = account.env.CODEX_HOME ?? join(account.env.HOME ?? homedir(), ".codex");
  const limits = readCodexRateLimits(codexHome, now);
  if (!limits) {
    const login = readCodexAccount(codexHome);
    return {
      ...base,
      state: "unavailable",
      accountEmail: login?.email ?? null,
      plan: login?.plan ?? null,
      detail: login
        ? "Codex has not logged rate limits for this account yet; they appear after its first turn"
        : "Codex is not signed in with ChatGPT here (an API key has no rate-limit windows)",
    };
  }
  return {
    ...base,
    state: "available",
    accountEmail: limits.email,
    plan: limits.plan,
    windows: limits.windows,
    credits: limits.credits,
    // When Codex logged them: the limits are as old as that.
    fetchedAt: limits.observedAt,
    detail: null,
  };
}
