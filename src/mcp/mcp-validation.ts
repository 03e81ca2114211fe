import { InvalidInputError } from "../errors.ts";
import type { StoredMcpServer } from "../store/mcp-repository.ts";

/** Recognises Atrium's own credentials, so no MCP server can be handed them. */
export interface OwnCredentials {
  /** True when the text is one of Atrium's access tokens (a live one). */
  isAccessToken(text: string): boolean;
  /** The token file, which a stdio server's arguments or environment must not name either. */
  tokenFile: string;
}

/** The fields of a server that decide how it is reached, after a create or a change. */
export type McpServerShape = Pick<StoredMcpServer, "transport" | "command" | "args" | "url" | "authType"> & {
  env: Array<[string, string]>;
  headers: Array<[string, string]>;
};

const ACCESS_TOKEN_LIKE = /atr_[A-Za-z0-9_-]{20,}/g;

/** Throws a 400 naming the field when the server could not be reached as described, or would carry Atrium's own token. */
export function validateMcpServer(shape: McpServerShape, own: OwnCredentials): void {
  if (shape.transport === "stdio") {
    if (!shape.command) throw new InvalidInputError("command: a stdio server needs the program to run");
    if (shape.command.includes("\0") || shape.args.some((arg) => arg.includes("\0"))) throw new InvalidInputError("command: NUL is not allowed");
    if (shape.url) throw new InvalidInputError("url: a stdio server has no URL (use transport http or sse)");
    if (shape.headers.length > 0) throw new InvalidInputError("headers: a stdio server takes environment values, not headers");
    if (shape.authType === "oauth") throw new InvalidInputError("authType: oauth is for http and sse servers");
  } else {
    checkUrl(shape.url);
    if (shape.command) throw new InvalidInputError(`command: a ${shape.transport} server is reached at its URL, not started`);
    if (shape.env.length > 0) throw new InvalidInputError(`environment: a ${shape.transport} server takes headers, not environment values`);
  }
  const fields: Array<[string, string]> = [
    ["command", shape.command],
    ["url", shape.url],
    ...shape.args.map((arg): [string, string] => ["args", arg]),
    ...shape.env.map(([name, value]): [string, string] => [`environment.${name}`, value]),
    ...shape.headers.map(([name, value]): [string, string] => [`headers.${name}`, value]),
  ];
  for (const [field, value] of fields) {
    if (carriesAccessToken(value, own)) throw new InvalidInputError(`${field}: an MCP server must not be given Atrium's own access token`);
    if (value.includes(own.tokenFile)) throw new InvalidInputError(`${field}: an MCP server must not be pointed at Atrium's token file`);
  }
}

function checkUrl(url: string): void {
  if (!url) throw new InvalidInputError("url: an http or sse server needs its URL");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidInputError("url: not a URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new InvalidInputError("url: must be http:// or https://");
  if (parsed.username || parsed.password) throw new InvalidInputError("url: put credentials in headers, not in the URL (they would be shown)");
}

function carriesAccessToken(value: string, own: OwnCredentials): boolean {
  for (const match of value.matchAll(ACCESS_TOKEN_LIKE)) if (own.isAccessToken(match[0])) return true;
  return false;
}

/**
 * The values after a change: a new value sets a name, null keeps the stored one (400 when there is
 * none), a name left out goes; `undefined` (the field left out) keeps them all.
 */
export function mergeSecrets(field: string, stored: Array<[string, string]>, change: Record<string, string | null> | undefined): Array<[string, string]> {
  if (change === undefined) return stored;
  const kept = new Map(stored);
  return Object.entries(change).map(([name, value]): [string, string] => {
    if (value !== null) return [name, value];
    const previous = kept.get(name);
    if (previous === undefined) throw new InvalidInputError(`${field}.${name}: there is no stored value to keep; give one`);
    return [name, previous];
  });
}
