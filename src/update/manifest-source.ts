import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ReleaseChannel } from "./manifest.ts";

/**
 * Where releases are read from: `https://…`, `file://…` (or a plain absolute path), and `http://` only
 * on loopback (tests, a local mirror). Everything read is checked against the signed manifest, so this
 * module only fetches bytes; it trusts none of them.
 */

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The base URL as a URL ending in `/`, so relative names resolve inside it. Throws on a bad one. */
export function releaseBaseUrl(base: string): URL {
  const url = base.startsWith("/") ? pathToFileURL(base) : new URL(base);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  assertReadableUrl(url);
  return url;
}

export const channelManifestUrl = (base: URL, channel: ReleaseChannel): URL => new URL(`${channel}.json`, base);

/** A file named in a manifest: relative to the manifest's own URL unless absolute (release.ts `--base-url`). */
export function releaseFileUrl(manifestUrl: URL, fileUrl: string): URL {
  const url = new URL(fileUrl, manifestUrl);
  // A manifest fetched over the network must not send the updater to read local files.
  if (url.protocol === "file:" && manifestUrl.protocol !== "file:") {
    throw new Error(`the manifest at ${manifestUrl.href} names a local file (${url.href})`);
  }
  assertReadableUrl(url);
  return url;
}

export function assertReadableUrl(url: URL): void {
  if (url.protocol === "https:" || url.protocol === "file:") return;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.test(url.hostname)) return;
  if (url.protocol === "http:") throw new Error(`${url.href}: plain http is only used on loopback; use https`);
  throw new Error(`${url.href}: releases are read from https://, file:// or loopback http:// URLs`);
}

const isMissingFile = (error: unknown) => (error as { code?: string }).code === "ENOENT";

/**
 * The parsed JSON at `url`, or undefined when there is no such file (404, or no file on disk): an
 * alpha check goes on with stable alone before the first alpha is published. Other failures throw.
 */
export async function readJsonDocument(url: URL, timeoutMs: number): Promise<unknown> {
  let text: string;
  if (url.protocol === "file:") {
    try {
      text = await readFile(fileURLToPath(url), "utf8");
    } catch (error) {
      if (isMissingFile(error)) return undefined;
      throw new Error(`cannot read ${url.href}: ${(error as Error).message}`);
    }
  } else {
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" } });
    } catch (error) {
      const cause = (error as Error).name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : (error as Error).message;
      throw new Error(`cannot reach ${url.href}: ${cause}`);
    }
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`${url.href} answered HTTP ${response.status}`);
    }
    text = await response.text();
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${url.href} is not JSON`);
  }
}

/** The bytes at `url` as a stream (an executable being downloaded). */
export async function openByteStream(url: URL, connectTimeoutMs: number): Promise<ReadableStream<Uint8Array>> {
  if (url.protocol === "file:") {
    const file = Bun.file(fileURLToPath(url));
    if (!(await file.exists())) throw new Error(`${url.href} does not exist`);
    return file.stream();
  }
  let response: Response;
  try {
    // The timeout covers the answer's headers only; the body is watched for stalls by the reader.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), connectTimeoutMs);
    try {
      response = await fetch(url, { signal: controller.signal });
    } finally {
      clearTimeout(timer);
    }
  } catch (error) {
    throw new Error(`cannot download ${url.href}: ${(error as Error).message}`);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new Error(`downloading ${url.href} answered HTTP ${response.status}`);
  }
  return response.body;
}
