import type { Logger } from "../logging/logger.ts";
import type { PackageVersionRepository } from "../store/package-version-repository.ts";
import { latestManifestUrl, registryFor } from "./npm-registry.ts";

/** What the registry said of a package's newest version, or why nothing is known. */
export interface LatestVersion {
  version: string | null;
  checkedAt: string;
  notes: string | null;
}

export interface LatestVersionOptions {
  /** The environment and home npm's configuration is read from (which registry, which proxy). */
  env: Record<string, string | undefined>;
  home: string;
  repository: PackageVersionRepository;
  logger: Logger;
  timeoutMs: number;
  /** A successful answer is reused this long; the registry is not asked on every read. */
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
 * The newest published version of each package, asked of the npm registry over HTTP (the registry npm
 * is configured with; no npm process), only when someone wants it and the answer kept has expired.
 * Answers are kept in the database, so a restart asks nothing until they expire. Offline, the answer
 * is no version and a note saying why.
 */
export class LatestVersions {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<LatestVersion>>();
  private readonly now: () => Date;

  constructor(private readonly options: LatestVersionOptions) {
    this.now = options.now ?? (() => new Date());
    for (const stored of options.repository.all()) {
      this.cache.set(stored.package, { value: { version: stored.version, checkedAt: stored.checkedAt, notes: stored.notes }, expiresAt: stored.expiresAtMs });
    }
  }

  /** The kept answer, if there is one (fresh or not). */
  cached(npmPackage: string): LatestVersion | undefined {
    return this.cache.get(npmPackage)?.value;
  }

  /** Whether the registry should be asked again for this package. */
  isStale(npmPackage: string): boolean {
    const entry = this.cache.get(npmPackage);
    return !entry || entry.expiresAt <= this.now().getTime();
  }

  /** The answer, asking the registry only when the kept one has expired; concurrent asks share one request. */
  check(npmPackage: string): Promise<LatestVersion> {
    if (!this.isStale(npmPackage)) return Promise.resolve(this.cache.get(npmPackage)!.value);
    let pending = this.inFlight.get(npmPackage);
    if (!pending) {
      pending = this.ask(npmPackage).finally(() => this.inFlight.delete(npmPackage));
      this.inFlight.set(npmPackage, pending);
    }
    return pending;
  }

  private async ask(npmPackage: string): Promise<LatestVersion> {
    const checkedAt = this.now().toISOString();
    const registry = registryFor(npmPackage, this.options.env, this.options.home);
    const failed = (notes: string) => this.remember(npmPackage, { version: null, checkedAt, notes }, this.options.retryAfterMs);
    let response: Response;
    try {
      response = await fetch(latestManifestUrl(registry, npmPackage), {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      const reason = (error as { code?: string }).code ?? (error as Error).name;
      return failed(
        `the npm registry ${registry} could not be reached (offline?): ${reason === "TimeoutError" ? `no answer within ${this.options.timeoutMs} ms` : reason}`,
      );
    }
    if (!response.ok) return failed(`the npm registry ${registry} answered ${response.status} for ${npmPackage}`);
    const manifest = (await response.json().catch(() => undefined)) as { version?: unknown } | undefined;
    if (typeof manifest?.version !== "string") return failed(`the npm registry ${registry} named no version for ${npmPackage}`);
    return this.remember(npmPackage, { version: manifest.version, checkedAt, notes: null }, this.options.freshForMs);
  }

  private remember(npmPackage: string, value: LatestVersion, forMs: number): LatestVersion {
    const expiresAt = this.now().getTime() + forMs;
    this.cache.set(npmPackage, { value, expiresAt });
    try {
      this.options.repository.save({ package: npmPackage, ...value, expiresAtMs: expiresAt });
    } catch (error) {
      // Kept in memory all the same; only a restart asks again.
      this.options.logger.warn("a package's latest version could not be stored", { npmPackage, error });
    }
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
