import { readFileSync, statSync } from "node:fs";
import type { HarnessMcpConfig, McpConfigFormat } from "../harness/harness-definition.ts";
import type { Logger } from "../logging/logger.ts";
import type { McpServerKind, McpTransport } from "../schemas/mcps.ts";
import type { McpEndpoint } from "./mcp-probe.ts";

/** A server a harness starts from its own config: shown read-only, probed on request, never given to sessions by Atrium. */
export interface HarnessMcpServer extends McpEndpoint {
  harnessId: McpServerKind;
  enabled: boolean;
  configPath: string;
  /** When the config file last changed. */
  configChangedAt: string;
}

type Entry = Record<string, unknown>;

const isEntry = (value: unknown): value is Entry => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === "string" ? value : "");
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);
const stringMap = (value: unknown): Record<string, string> =>
  isEntry(value) ? Object.fromEntries(Object.entries(value).filter((pair): pair is [string, string] => typeof pair[1] === "string")) : {};

/** One server entry in a harness's dialect. */
type EntryReader = (name: string, entry: Entry) => Omit<McpEndpoint, "name"> & { enabled: boolean };

const endpoint = (transport: McpTransport, fields: Partial<Omit<McpEndpoint, "name" | "transport">>, enabled = true) => ({
  transport,
  command: fields.command ?? "",
  args: fields.args ?? [],
  env: fields.env ?? {},
  url: fields.url ?? "",
  headers: fields.headers ?? {},
  enabled,
});

/** Claude Code (and Copilot CLI): `{type?: stdio | local | http | sse, command, args, env, url, headers}`. */
const claudeEntry: EntryReader = (_name, entry) => {
  const type = text(entry.type);
  if (type === "http" || type === "sse") return endpoint(type, { url: text(entry.url), headers: stringMap(entry.headers) });
  return endpoint("stdio", { command: text(entry.command), args: strings(entry.args), env: stringMap(entry.env) });
};

/** Gemini CLI and Qwen Code: `httpUrl` is Streamable HTTP, `url` SSE (or HTTP with `type: http`). */
const geminiEntry: EntryReader = (_name, entry) => {
  const headers = stringMap(entry.headers);
  if (text(entry.httpUrl)) return endpoint("http", { url: text(entry.httpUrl), headers });
  if (text(entry.url)) return endpoint(entry.type === "http" ? "http" : "sse", { url: text(entry.url), headers });
  return endpoint("stdio", { command: text(entry.command), args: strings(entry.args), env: stringMap(entry.env) });
};

/** Codex: `[mcp_servers.<name>]` with command/args/env, or `url` (Streamable HTTP) with `http_headers`; `enabled = false` turns one off. */
const codexEntry: EntryReader = (_name, entry) => {
  const enabled = entry.enabled !== false;
  if (text(entry.url)) return endpoint("http", { url: text(entry.url), headers: stringMap(entry.http_headers) }, enabled);
  return endpoint("stdio", { command: text(entry.command), args: strings(entry.args), env: stringMap(entry.env) }, enabled);
};

/** OpenCode: `{type: local, command: [program, …args], environment}` or `{type: remote, url, headers}`. */
const opencodeEntry: EntryReader = (_name, entry) => {
  const enabled = entry.enabled !== false;
  if (entry.type === "remote") return endpoint("http", { url: text(entry.url), headers: stringMap(entry.headers) }, enabled);
  const [command = "", ...args] = strings(entry.command);
  return endpoint("stdio", { command, args, env: stringMap(entry.environment) }, enabled);
};

const DIALECTS: Record<McpConfigFormat, { parse: (source: string) => unknown; servers: (config: Entry) => unknown; entry: EntryReader }> = {
  claude: { parse: JSON.parse, servers: (config) => config.mcpServers, entry: claudeEntry },
  gemini: { parse: JSON.parse, servers: (config) => config.mcpServers, entry: geminiEntry },
  codex: { parse: (source) => Bun.TOML.parse(source), servers: (config) => config.mcp_servers, entry: codexEntry },
  // opencode.json may be JSONC: comments and trailing commas.
  opencode: { parse: (source) => Bun.JSONC.parse(source), servers: (config) => config.mcp, entry: opencodeEntry },
};

/** The servers in one harness's config file, as that harness would start them. */
function readHarnessMcpServers(harnessId: McpServerKind, config: HarnessMcpConfig, source: string, changedAt: string): HarnessMcpServer[] {
  const dialect = DIALECTS[config.format];
  const parsed = dialect.parse(source);
  const servers = isEntry(parsed) ? dialect.servers(parsed) : undefined;
  if (!isEntry(servers)) return [];
  return Object.entries(servers)
    .filter((pair): pair is [string, Entry] => isEntry(pair[1]))
    .map(([name, entry]) => ({ name, harnessId, configPath: config.path, configChangedAt: changedAt, ...dialect.entry(name, entry) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The harnesses' own servers, read again only when a config file changed (its size or time): the
 * listing answers from memory, and Claude's ~/.claude.json can be megabytes of history.
 */
export class HarnessMcpConfigs {
  private readonly cache = new Map<string, { stamp: string; servers: HarnessMcpServer[] }>();

  constructor(
    private readonly configs: () => Array<HarnessMcpConfig & { harnessId: string }>,
    private readonly logger: Logger,
  ) {}

  servers(): HarnessMcpServer[] {
    return this.configs().flatMap((config) => (isHarnessKind(config.harnessId) ? this.read(config.harnessId, config) : []));
  }

  private read(harnessId: McpServerKind, config: HarnessMcpConfig): HarnessMcpServer[] {
    let stamp: string;
    let changedAt: string;
    try {
      const stat = statSync(config.path);
      stamp = `${stat.mtimeMs}:${stat.size}`;
      changedAt = stat.mtime.toISOString();
    } catch {
      this.cache.delete(config.path);
      return [];
    }
    const cached = this.cache.get(config.path);
    if (cached?.stamp === stamp) return cached.servers;
    let servers: HarnessMcpServer[] = [];
    try {
      servers = readHarnessMcpServers(harnessId, config, readFileSync(config.path, "utf8"), changedAt);
    } catch (error) {
      this.logger.warn("could not read a harness's MCP servers", { harnessId, path: config.path, error: (error as Error).message });
    }
    this.cache.set(config.path, { stamp, servers });
    return servers;
  }
}

const HARNESS_KINDS = new Set<string>(["claude", "codex", "gemini", "opencode", "qwen", "copilot"]);
const isHarnessKind = (id: string): id is McpServerKind => HARNESS_KINDS.has(id);
