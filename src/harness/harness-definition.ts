import type { Static } from "@sinclair/typebox";
import type { LoginMethod } from "../schemas/harnesses.ts";
import type { CommandResult } from "../process/run-command.ts";

/** What an auth probe learned; only what the harness's own files or status command tell. */
export interface AuthProbe {
  state: "authenticated" | "unauthenticated" | "unknown";
  email?: string;
  organizationId?: string;
  authMethod?: string;
  detail?: string;
}

/** What a probe may use: the harness's executable, the service's environment, and its files. */
export interface ProbeContext {
  executablePath: string;
  env: Record<string, string | undefined>;
  home: string;
  /** Runs the harness executable with `args`, under the probe time limit. */
  run(args: string[]): Promise<CommandResult>;
  /** Parses a JSON file, or undefined when it is missing or not JSON. */
  readJson(path: string): unknown;
}

/** Where an agent's ACP stream departs from the protocol's meaning, as sessions must know to carry it faithfully. */
export interface AgentQuirks {
  /**
   * Reply text the agent sends about itself rather than the model's words (codex-acp forwards Codex's
   * warnings as message chunks): a chunk matching it is the session's notice, not part of the reply.
   */
  selfNotice?: RegExp;
  /**
   * The cost in its `usage_update` counts from the agent process's start, not the session's
   * (claude-agent-acp): each new process's count is added to what the session had.
   */
  costPerProcess?: boolean;
  /**
   * The token counts in its prompt answer are the turn's last model call only (OpenCode): they are
   * not the turn's, so they are not counted.
   */
  turnTokensOfLastCall?: boolean;
  /**
   * It cannot use the client's `fs/read_text_file` (Gemini CLI 0.61 cannot tell a missing file in its
   * answer, so it could never create a file): it is not offered, and the agent reads the disk itself.
   */
  readsFilesItself?: boolean;
  /**
   * A session/load in the period its session began in wipes the session (Gemini CLI 0.61 names a
   * session's file by the UTC minute it began, and each load starts a recording under its own
   * minute's name): a load waits for a later period. The period's length in ms, counted from the epoch.
   */
  loadWipesInStartPeriodMs?: number;
  /**
   * After session/load it may run another model than the one it reports (Claude Code resumes with the
   * model its transcript names, without the 1M-context variant the session ran, while claude-agent-acp
   * reports the session's choice): the model is set again after each load, even where it is reported.
   */
  modelUnsureAfterLoad?: boolean;
}

/** One coding-agent CLI the registry knows. Every definition has the same shape. */
export interface HarnessDefinition {
  id: string;
  name: string;
  symbolName: string;
  source: "builtin" | "config";
  /** `builtin`: carried inside the Atrium binary, so always there (echo). */
  launchKind: "executable" | "builtin";
  /** The command looked up on the service's PATH. */
  executable: string;
  /** Asks the executable for its version; empty: the version is read from its npm package instead. */
  versionArgs: string[];
  /**
   * The ACP adapter a session runs when the CLI does not speak ACP itself (claude-agent-acp,
   * codex-acp): a harness is ready only when both are there, and both are installed together.
   */
  adapter?: { executable: string; npmPackage: string };
  /** How a session starts it as an ACP agent over stdio (used by sessions). */
  acpCommand: string[];
  npmPackage?: string;
  /** Homebrew has the CLI only; a harness with an npm-only adapter offers no brew install. */
  brewFormula?: string;
  /**
   * Which of the ACP `authenticate` methods the agent offers fits the account's credentials, for methods
   * that do not say so themselves (env_var methods name their variables and are matched generically).
   */
  acpAuthMethod?(offered: string[], context: Pick<ProbeContext, "env" | "home" | "readJson">): string | undefined;
  installHint: string;
  loginMethods: Static<typeof LoginMethod>[];
  /**
   * The environment variable naming the harness's config home (CLAUDE_CONFIG_DIR, CODEX_HOME): set, the
   * harness can keep separate logins in separate folders, so it can have several accounts.
   */
  configHomeEnv?: string;
  /** The command that logs in from a terminal, offered in an unauthenticated account's detail. */
  loginCommand?: string[];
  probeAuth(context: ProbeContext): Promise<AuthProbe>;
  /** Where the CLI reads user-level skills (folders with a SKILL.md); absent when it reads none. */
  skillsDir?(context: SkillsDirContext): string;
  /** Where the CLI's user config lists its MCP servers, and in which dialect; absent when it has none Atrium reads. */
  mcpConfig?(context: SkillsDirContext): HarnessMcpConfig;
  /**
   * Variables a session's agent needs besides the account's, given where the CLI was found (an
   * adapter that would otherwise run a CLI of its own rather than the one Atrium shows and updates).
   */
  launchEnv?(context: { env: Record<string, string | undefined>; executablePath: string }): Record<string, string>;
  /** How the agent's ACP stream departs from what the protocol says, where a session must know. */
  quirks?: AgentQuirks;
  /** Why the agent will not use an MCP server of this transport that a session gives it in this folder; undefined when it will. */
  mcpCaveat?(context: McpCaveatContext): string | undefined;
}

export interface McpCaveatContext extends SkillsDirContext {
  cwd: string;
  transport: "stdio" | "http" | "sse";
}

/** The dialects of the harnesses' MCP server lists (src/mcp/harness-mcp-configs.ts reads them). */
export type McpConfigFormat = "claude" | "codex" | "gemini" | "opencode";

export interface HarnessMcpConfig {
  path: string;
  format: McpConfigFormat;
}

/** The first version-looking token of a `--version` output, e.g. `codex-cli 0.20.0` → `0.20.0`. */
/** What a harness's skills folder depends on: its account's environment. */
export interface SkillsDirContext {
  env: Record<string, string | undefined>;
  home: string;
}

export function parseVersion(output: string): string | undefined {
  return /\b(\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.-]+)?)\b/.exec(output)?.[1];
}

export const unknownAuth = (detail: string) => async (): Promise<AuthProbe> => ({ state: "unknown", detail });
