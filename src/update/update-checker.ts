import { verifySignedManifest, type ReleaseChannel, type ReleaseFile, type ReleaseManifest } from "./manifest.ts";
import { channelManifestUrl, readJsonDocument, releaseBaseUrl, releaseFileUrl } from "./manifest-source.ts";
import { compareReleases, describeRelease, isBelowVersion, newestRelease, type ReleaseIdentity } from "./release-order.ts";

/** One channel's verified manifest and where it came from. */
export interface ReleaseCandidate extends ReleaseIdentity {
  channel: ReleaseChannel;
  manifest: ReleaseManifest;
  manifestUrl: URL;
  /** The parsed document as fetched, so the applier can check the signature once more before swapping. */
  signed: unknown;
}

/** What an update for this machine would install. */
export interface UpdateTarget {
  release: ReleaseCandidate;
  file: ReleaseFile;
  fileUrl: URL;
}

export interface CheckResult {
  channel: ReleaseChannel;
  checkedAt: string;
  /** The newest release found, whatever the platform; undefined when the check failed. */
  latest: ReleaseCandidate | undefined;
  /** Set when the latest release is newer and installable here. */
  target: UpdateTarget | undefined;
  /** Why there is no target when the answer is not simply "up to date"; undefined otherwise. */
  detail: string | undefined;
}

export interface UpdateCheckerDeps {
  /** `updateBaseUrl`: where `<channel>.json` is published. */
  baseUrl: string;
  /** The Ed25519 key manifests must be signed with; null in builds that cannot update. */
  publicKey: string | null;
  installed: ReleaseIdentity;
  /** The manifest `files` key of this executable (`linux-x64`, …). */
  platformKey: string;
  timeoutMs?: number;
  now?: () => Date;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** Reads and verifies the channel manifests and decides whether there is a newer build for this machine. */
export class UpdateChecker {
  constructor(private readonly deps: UpdateCheckerDeps) {}

  get installed(): ReleaseIdentity {
    return this.deps.installed;
  }

  async check(channel: ReleaseChannel): Promise<CheckResult> {
    const checkedAt = (this.deps.now?.() ?? new Date()).toISOString();
    const result = (fields: Partial<CheckResult>): CheckResult => ({ channel, checkedAt, latest: undefined, target: undefined, detail: undefined, ...fields });
    if (this.deps.publicKey === null) {
      return result({ detail: "this build has no update key (it was built from source or locally), so it cannot check for or apply updates" });
    }
    let latest: ReleaseCandidate;
    try {
      latest = await this.newestOf(channel === "alpha" ? ["alpha", "stable"] : ["stable"], this.deps.publicKey);
    } catch (error) {
      return result({ detail: `the update check failed: ${(error as Error).message}` });
    }
    if (compareReleases(latest, this.deps.installed) <= 0) return result({ latest });
    const file = latest.manifest.files[this.deps.platformKey];
    if (!file) return result({ latest, detail: `release ${describeRelease(latest)} has no executable for ${this.deps.platformKey}` });
    const minimum = latest.manifest.minServiceVersion;
    if (minimum !== null && isBelowVersion(this.deps.installed.version, minimum)) {
      return result({
        latest,
        detail: `release ${describeRelease(latest)} needs ${minimum} or later installed first; reinstall with install.sh`,
      });
    }
    try {
      return result({ latest, target: { release: latest, file, fileUrl: releaseFileUrl(latest.manifestUrl, file.url) } });
    } catch (error) {
      return result({ latest, detail: `release ${describeRelease(latest)}: ${(error as Error).message}` });
    }
  }

  /** Every listed channel's manifest (a missing one is skipped; a bad one fails the check), newest first. */
  private async newestOf(channels: ReleaseChannel[], publicKey: string): Promise<ReleaseCandidate> {
    const base = releaseBaseUrl(this.deps.baseUrl);
    const found = await Promise.all(channels.map((channel) => this.read(channelManifestUrl(base, channel), channel, publicKey)));
    const newest = newestRelease(found.filter((candidate) => candidate !== undefined));
    if (!newest) throw new Error(`there is no ${channels.map((channel) => `${channel}.json`).join(" or ")} at ${base.href}`);
    return newest;
  }

  private async read(url: URL, channel: ReleaseChannel, publicKey: string): Promise<ReleaseCandidate | undefined> {
    const signed = await readJsonDocument(url, this.deps.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    if (signed === undefined) return undefined;
    let manifest: ReleaseManifest;
    try {
      manifest = verifySignedManifest(signed, publicKey);
    } catch (error) {
      throw new Error(`${url.href}: ${(error as Error).message}`);
    }
    // Both files are signed with one key; this catches one published under the other's name.
    if (manifest.channel !== channel) throw new Error(`${url.href} describes the ${manifest.channel} channel`);
    return { version: manifest.version, buildNumber: manifest.buildNumber, channel, manifest, manifestUrl: url, signed };
  }
}
