import { isAbsolute } from "node:path";
import { InvalidInputError } from "../errors.ts";

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
/** `transport::address`, git's remote-helper syntax; an IPv6 host inside a URL is not one. */
const REMOTE_HELPER = /^[A-Za-z0-9+.-]*::/;
const SCP_LIKE = /^(?:([^@/:]+)@)?([^@/:]+):(?!\/\/)(.+)$/;
const ALLOWED_SCHEMES = new Set(["https", "http", "ssh", "git", "file"]);
const DEFAULT_PORTS: Record<string, string> = { https: "443", http: "80", ssh: "22", git: "9418" };
/** `scheme://userinfo@` anywhere in a text; greedy up to the last `@` of the authority, as URL parsers read it. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]*)@/gi;

/**
 * A URL, or a text that holds URLs (git's error output), without the credentials in them. Over http(s)
 * the whole userinfo goes, since a token is often sent as the user name (`https://ghp_…@github.com`);
 * elsewhere (`ssh://git@host`) the user name stays, as part of the address, and only a password goes.
 */
export function redactCredentials(text: string): string {
  return text.replace(URL_USERINFO, (_match, scheme: string, userinfo: string) => (/^https?:/i.test(scheme) ? scheme : `${scheme}${userinfo.split(":")[0]}@`));
}

/**
 * Refuses what git would read as an option (`-…`) or hand to a remote helper (`ext::`, `fd::`, any
 * `transport::address`), and anything that is not https, http, ssh, git, file, scp-like
 * (`user@host:path`) or an absolute local path.
 */
export function checkCloneUrl(url: string): void {
  if (url.trim() !== url || url.length === 0) throw new InvalidInputError("url must not be empty or padded with spaces");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(url)) throw new InvalidInputError("url must not contain control characters");
  if (url.startsWith("-")) throw new InvalidInputError("url must not start with '-' (git would read it as an option)");
  if (REMOTE_HELPER.test(url)) throw new InvalidInputError("url must not name a git remote helper (transport::address)");
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (!ALLOWED_SCHEMES.has(scheme)) throw new InvalidInputError(`url scheme "${scheme}" is not supported; use https, ssh, git or file`);
  } else if (!isAbsolute(url) && !SCP_LIKE.test(url)) {
    throw new InvalidInputError("url must be an https, ssh, git or file URL, user@host:path, or an absolute path");
  }
  try {
    repoKeyOf(url);
  } catch {
    throw new InvalidInputError(`url ${redactCredentials(url)} is not a valid URL`);
  }
}

const stripGitSuffix = (path: string) =>
  path
    .replace(/\/+$/, "")
    .replace(/\.git$/, "")
    .replace(/\/+$/, "");

/**
 * The identity of a repository, whatever the URL form: `https://github.com/a/b.git`,
 * `git@github.com:a/b` and `ssh://git@github.com/a/b` are all `github.com/a/b`. Hosts are lower-cased,
 * user names and default ports dropped. A local repository is keyed by its absolute path.
 */
export function repoKeyOf(url: string): string {
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === "file") return stripGitSuffix(decodeURIComponent(new URL(url).pathname));
  if (scheme !== undefined) {
    const parsed = new URL(url);
    if (parsed.hostname === "") throw new InvalidInputError(`url ${redactCredentials(url)} names no host`);
    const host = parsed.hostname.toLowerCase();
    const port = parsed.port && parsed.port !== DEFAULT_PORTS[scheme] ? `:${parsed.port}` : "";
    return `${host}${port}/${stripGitSuffix(decodeURIComponent(parsed.pathname).replace(/^\/+/, ""))}`;
  }
  if (isAbsolute(url)) return stripGitSuffix(url);
  const scp = SCP_LIKE.exec(url);
  if (!scp) throw new InvalidInputError(`cannot tell which repository ${redactCredentials(url)} is`);
  return `${scp[2]!.toLowerCase()}/${stripGitSuffix(scp[3]!.replace(/^\/+/, ""))}`;
}

/** The repository's own name, for the project name and its folder: `github.com/a/b` → `b`. */
export function repoNameOf(repoKey: string): string {
  return (
    repoKey
      .split("/")
      .filter((part) => part.length > 0)
      .pop() ?? "repository"
  );
}
