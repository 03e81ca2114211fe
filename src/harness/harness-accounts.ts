import { mkdirSync, rmSync } from "node:fs";
import { join, sep } from "node:path";
import type { Store } from "../store/database.ts";
import type { HarnessAccountRepository, HarnessAccountRow } from "../store/harness-account-repository.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { HarnessDefinition } from "./harness-definition.ts";

/** One login of a harness: its own config home (a profile), or the harness's usual one (default). */
export interface AccountProfile {
  id: string;
  harnessId: string;
  label: string;
  profileKind: "default" | "profile";
  /** Null for the default account. */
  configHome: string | null;
}

export interface HarnessAccountsDeps {
  store: Store;
  repository: HarnessAccountRepository;
  /** Where profiles' config homes are made: `<dataDir>/accounts/<harnessId>/<key>`. */
  accountsDir: string;
  now?: () => Date;
}

export const defaultAccountId = (harnessId: string) => `${harnessId}:default`;

/**
 * The accounts of each harness. Every harness has its default account; a harness whose CLI reads its
 * config home from an environment variable (CLAUDE_CONFIG_DIR, CODEX_HOME) can have more, each a
 * folder Atrium made. The active account is the one new sessions start with.
 */
export class HarnessAccounts {
  private readonly now: () => Date;

  constructor(private readonly deps: HarnessAccountsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  profiles(definition: HarnessDefinition): AccountProfile[] {
    const rows = this.deps.repository.listOf(definition.id);
    const defaultRow = rows.find((row) => row.configHome === null);
    const made = definition.configHomeEnv ? rows.filter((row) => row.configHome !== null) : [];
    return [
      {
        id: defaultAccountId(definition.id),
        harnessId: definition.id,
        label: defaultRow?.label ?? "Default",
        profileKind: "default",
        configHome: null,
      },
      ...made.map((row, index) => ({
        id: row.id,
        harnessId: definition.id,
        label: row.label ?? `Account ${index + 2}`,
        profileKind: "profile" as const,
        configHome: row.configHome,
      })),
    ];
  }

  activeId(definition: HarnessDefinition): string {
    const stored = this.deps.repository.activeOf(definition.id);
    const profiles = this.profiles(definition);
    return profiles.find((profile) => profile.id === stored)?.id ?? defaultAccountId(definition.id);
  }

  profile(definition: HarnessDefinition, accountId: string): AccountProfile {
    const profile = this.profiles(definition).find((candidate) => candidate.id === accountId);
    if (!profile) throw new NotFoundError(`${definition.name} has no account ${accountId}`);
    return profile;
  }

  /** Makes a new, empty config home; the user logs in to it with the harness's own CLI. */
  add(definition: HarnessDefinition, label: string | null | undefined): AccountProfile {
    if (!definition.configHomeEnv) {
      throw new InvalidInputError(`${definition.name} keeps one login per machine, so it cannot have more accounts`);
    }
    const key = newId("acct");
    const configHome = join(this.deps.accountsDir, definition.id, key);
    mkdirSync(configHome, { recursive: true, mode: 0o700 });
    const row: HarnessAccountRow = {
      id: `${definition.id}:${key}`,
      harnessId: definition.id,
      label: label ?? null,
      configHome,
      createdAt: this.now().toISOString(),
    };
    try {
      this.deps.store.transaction(() => this.deps.repository.save(row));
    } catch (error) {
      rmSync(configHome, { recursive: true, force: true });
      throw error;
    }
    return this.profile(definition, row.id);
  }

  /** Sets the label; null gives back the default one. */
  setLabel(definition: HarnessDefinition, accountId: string, label: string | null): AccountProfile {
    const profile = this.profile(definition, accountId);
    const existing = this.deps.repository.listOf(definition.id).find((row) => row.id === accountId);
    this.deps.repository.save({
      id: accountId,
      harnessId: definition.id,
      label,
      configHome: profile.configHome,
      createdAt: existing?.createdAt ?? this.now().toISOString(),
    });
    return this.profile(definition, accountId);
  }

  activate(definition: HarnessDefinition, accountId: string): void {
    this.profile(definition, accountId);
    this.deps.repository.setActive(definition.id, accountId);
  }

  /** Forgets a profile and deletes its config home (its login with it); the default stays. */
  remove(definition: HarnessDefinition, accountId: string): void {
    const profile = this.profile(definition, accountId);
    if (!profile.configHome) throw new ConflictError(`the default account of ${definition.name} cannot be removed`);
    this.deps.repository.remove(accountId);
    // Only ever a folder this class made under the accounts dir.
    if (profile.configHome.startsWith(this.deps.accountsDir + sep)) {
      this.deps.store.onCommit(() => rmSync(profile.configHome!, { recursive: true, force: true }));
    }
  }

  /** The environment a harness process of this account runs with, over the service's own. */
  environment(definition: HarnessDefinition, profile: AccountProfile): Record<string, string> {
    return profile.configHome && definition.configHomeEnv ? { [definition.configHomeEnv]: profile.configHome } : {};
  }
}
