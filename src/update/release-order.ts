/** A release as the updater orders them: what a manifest describes, or the build that is running. */
export interface ReleaseIdentity {
  version: string;
  buildNumber: number;
  /** `stable`, `alpha`, or `dev` for a build from source. */
  channel: string;
}

/**
 * Negative when `a` is older than `b`, positive when newer. Within one channel the build number
 * decides (a publisher can supersede a release with a higher build of any version); across channels
 * the semantic version does, with the build number breaking a tie, so an alpha user on 1.3.0-alpha.2
 * is not "updated" to a stable 1.2.9 that happens to carry a later build number.
 */
export function compareReleases(a: ReleaseIdentity, b: ReleaseIdentity): number {
  if (a.channel === b.channel) return a.buildNumber - b.buildNumber;
  return Bun.semver.order(a.version, b.version) || a.buildNumber - b.buildNumber;
}

/** The newest of some releases (the first of equals); undefined for none. */
export function newestRelease<T extends ReleaseIdentity>(releases: T[]): T | undefined {
  let newest: T | undefined;
  for (const release of releases) if (!newest || compareReleases(release, newest) > 0) newest = release;
  return newest;
}

/** Whether the running build is older than `minimum` (a manifest's minServiceVersion). */
export function isBelowVersion(version: string, minimum: string): boolean {
  return Bun.semver.order(version, minimum) < 0;
}

export const describeRelease = (release: { version: string; buildNumber: number }): string => `${release.version} (build ${release.buildNumber})`;
