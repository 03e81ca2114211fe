import { runCommand } from "../process/run-command.ts";
import { parseVersion } from "./harness-definition.ts";

/** What the registry said of a package's newest version, or why nothing is known. */
export interface LatestVersion {
  version: string | null;
  checkedAt: string;
  notes: string | null;
}

export interface LatestVersionOptions {
  env: Record<string, string | undefined>;
  timeoutMs: number;
  /** A successful answer is reused this long; the registry is not asked on every scan. */
  freshForMs: number;
  /** A failed check (offline, registry down) is retried no sooner than this. */
  retryAfterMs: number;
  now?: () => Date;
}

interface CacheEntry {
  value: LatestVersion;
  expiresAt: number;
}

/**
 * Asks `npm view <package> version` for the newest published version, with a time limit, and caches
 * the answer per package. Offline or without npm, the answer is no version and a note saying why.
 */
export class LatestVersions {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<LatestVersion>>();
  private readonly now: () => Date;

  constructor(private readonly options: LatestVersionOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** The cached answer, if there is one (fresh or not). */
  cached(npmPackage: string): LatestVersion | undefined {
    return this.cache.get(npmPackage)?.value;
  }

  /** The answer, asking the registry only when the cached one has expired. */
  check(npmPackage: string, npmPath: string | undefined): Promise<LatestVersion> {
    const entry = this.cache.get(npmPackage);
    if (entry && entry.expiresAt > this.now().getTime()) return Promise.resolve(entry.value);
    let pending = this.inFlight.get(npmPackage);
    if (!pending) {
      pending = this.ask(npmPackage, npmPath).finally(() => this.inFlight.delete(npmPackage));
      this.inFlight.set(npmPackage, pending);
    }
    return pending;
  }

  private async ask(npmPackage: string, npmPath: string | undefined): Promise<LatestVersion> {
    const checkedAt = this.now().toISOString();
    const failed = (notes: string): LatestVersion => this.remember(npmPackage, { version: null, checkedAt, notes }, this.options.retryAfterMs);
    if (!npmPath) return failed("npm is not on the service's PATH, so the latest version cannot be looked up");
    const result = await runCommand([npmPath, "view", npmPackage, "version"], {
      env: { ...this.options.env, npm_config_update_notifier: "false", npm_config_fund: "false" },
      timeoutMs: this.options.timeoutMs,
    });
    if (result.timedOut) return failed(`npm view did not answer within ${this.options.timeoutMs} ms (offline?)`);
    if (result.code !== 0) {
      const said = result.stderr.split("\n").find((line) => /error/i.test(line))?.trim() ?? `exit ${result.code}`;
      return failed(`npm view failed (offline?): ${said}`);
    }
    const version = parseVersion(result.stdout);
    if (!version) return failed("npm view printed no version");
    return this.remember(npmPackage, { version, checkedAt, notes: null }, this.options.freshForMs);
  }

  private remember(npmPackage: string, value: LatestVersion, forMs: number): LatestVersion {
    this.cache.set(npmPackage, { value, expiresAt: this.now().getTime() + forMs });
    return value;
  }
}

/** True when `latest` is a newer version than `installed`; unknown versions are never an update. */
export function isNewer(latest: string | null, installed: string | null): boolean {
  if (!latest || !installed) return false;
  try {
    return Bun.semver.order(latest, installed) === 1;
  } catch {
    return false;
  }
}
