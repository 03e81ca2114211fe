import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { npmInstallGlobal, registryUnreachable } from "../helpers/npm-install.ts";
import type { ApiName } from "./provider/script.ts";

/** One config option choice: `POST /v1/sessions/{id}/config {configId, value}`. */
export interface Choice {
  configId: string;
  value: string;
}

/** What a whole turn of the agent shows, where agents differ (docs/agents.md has the matrix). */
export interface TurnFacts {
  /** The vendor API it calls. */
  api: ApiName;
  /** Selections under which writing a file asks permission, set before the permission checks (none: the default asks). */
  asking?: Choice[];
  /**
   * What it does when the user refuses a write: `continues` with the model in the same turn (the tool
   * result tells it), or ends the turn with this stop reason and tells the model in the next turn.
   */
  onRefusal: "continues" | { ends: "cancelled" | "end_turn" };
  /**
   * What its plan tool does: `plan` reaches the session plan; `tool-call` is only a tool call (OpenCode's
   * todowrite); `none`: it offers none (Gemini CLI offers write_todos only with Gemini 2 models, and
   * sends no plan even then).
   */
  plans: "plan" | "tool-call" | "none";
  /** It reports token counts Atrium counts (Codex and Gemini send none; OpenCode's are the last model call's). */
  countsTokens: boolean;
  /** It lists its slash commands (`available_commands_update`) on its own once a session starts. */
  listsCommands?: boolean;
  /** A model choice, and the model the provider's request then names. */
  model: { choice: Choice; requestModel: string };
  /**
   * Loading a session in the UTC minute it began wipes its chat (Gemini CLI 0.61 starts a new recording
   * into the same-named file): Atrium's start waits for the next minute, which the suite checks.
   */
  loadWipesSameMinute?: boolean;
  /**
   * It retries a provider that refuses every request (429) for minutes, saying nothing over ACP nor on
   * stderr (Gemini CLI: about 6 minutes); the suite checks the status says how long it has been quiet.
   */
  retriesRefusalsForMinutes?: boolean;
  /**
   * The context window it reports (`usage_update` size) for its default model, which a restart must
   * keep (issue 36: Claude's 1,000,000 became 200,000, as Claude Code resumed without the 1M model).
   */
  defaultContextSize?: number;
  /** It tries a WebSocket first and, refused, falls back to HTTPS and says so as reply text (codex-acp). */
  announcesTransportFallback?: boolean;
}

/** What the conformance suite needs to know of one real agent; the checks are the same for all. */
export interface AgentFacts {
  /** The harness id in Atrium's registry. */
  id: string;
  /** Pinned npm packages, installed together into one prefix. */
  packages: string[];
  /** When the ACP adapter is a package of its own, readiness needs both binaries. */
  split?: { cli: string; adapter: string };
  /** The environment that points the agent at the scripted provider (`url` has no path). */
  env(url: string): Record<string, string>;
  /** Files to write under the agent's HOME (path relative to HOME → content). */
  homeFiles?(url: string): Record<string, string>;
  /** Set when the session starts; must still be in force after a restart. */
  first: Choice;
  /** Set after the restart; the agent's answer must still show `first`. */
  second: Choice;
  /**
   * The agent reports a failed model call as reply text and ends the turn with `end_turn` instead of
   * failing the prompt (Copilot CLI does), so the session cannot be in `error`; the reply must then
   * carry the provider's message.
   */
  failsInReply?: boolean;
  /**
   * What the agent does not do with the MCP servers a session gives it. `trusted-folders-only`: Gemini
   * CLI starts none of them in a folder it does not trust. `no-stdio`: Copilot CLI connects to the HTTP
   * ones and never starts a stdio one.
   */
  mcpQuirk?: "trusted-folders-only" | "no-stdio";
  /** Whole turns against the scripted provider; absent for an agent that is only checked for start, failure and processes. */
  turns?: TurnFacts;
}

export const AGENTS: AgentFacts[] = [
  {
    id: "claude",
    packages: ["@anthropic-ai/claude-code@2.1.197", "@agentclientprotocol/claude-agent-acp@0.49.0"],
    split: { cli: "claude", adapter: "claude-agent-acp" },
    // IS_SANDBOX=1 lets Claude Code run as root (CI containers) with the flags claude-agent-acp passes.
    env: (url) => ({ ANTHROPIC_API_KEY: "fake", ANTHROPIC_BASE_URL: url, IS_SANDBOX: "1" }),
    first: { configId: "model", value: "haiku" },
    second: { configId: "mode", value: "acceptEdits" },
    turns: {
      api: "anthropic",
      onRefusal: "continues",
      // Its Task tools (TaskCreate, TaskUpdate) reach the session plan.
      plans: "plan",
      countsTokens: true,
      listsCommands: true,
      model: { choice: { configId: "model", value: "haiku" }, requestModel: "claude-haiku-4-5" },
      defaultContextSize: 1_000_000,
    },
  },
  {
    id: "codex",
    packages: ["@openai/codex@0.169.0", "@zed-industries/codex-acp@0.16.0"],
    split: { cli: "codex", adapter: "codex-acp" },
    // Codex ignores OPENAI_BASE_URL; its config file names the provider's address.
    env: () => ({ CODEX_API_KEY: "fake" }),
    // Every edit and command asks (untrusted), and runs without a sandbox: this machine has no bwrap,
    // without which Codex's sandbox fails the edit. codex-acp then offers no mode option (no preset fits).
    homeFiles: (url) => ({
      ".codex/config.toml": `openai_base_url = "${url}/v1"\napproval_policy = "untrusted"\nsandbox_mode = "danger-full-access"\n`,
    }),
    first: { configId: "reasoning_effort", value: "high" },
    second: { configId: "model", value: "gpt-5.4" },
    turns: {
      api: "responses",
      // A refused patch or command aborts Codex's turn; the model hears of it with the next prompt.
      onRefusal: { ends: "cancelled" },
      plans: "plan",
      countsTokens: false,
      listsCommands: true,
      model: { choice: { configId: "model", value: "gpt-5.4" }, requestModel: "gpt-5.4" },
      announcesTransportFallback: true,
    },
  },
  {
    id: "gemini",
    packages: ["@google/gemini-cli@0.61.0"],
    env: (url) => ({ GEMINI_API_KEY: "fake", GOOGLE_GEMINI_BASE_URL: url }),
    // Its start-up cleanup deletes a loaded session's chat by default (sessionCleanup.ts): retention off.
    homeFiles: () => ({ ".gemini/settings.json": JSON.stringify({ general: { sessionRetention: { enabled: false } } }) }),
    first: { configId: "model", value: "gemini-3-flash-preview" },
    // autoEdit and yolo are refused in a folder the user has not trusted (a scratch project).
    second: { configId: "mode", value: "plan" },
    mcpQuirk: "trusted-folders-only",
    turns: {
      api: "gemini",
      onRefusal: "continues",
      plans: "none",
      // Summed over the turn's model calls in the prompt answer's _meta.quota.
      countsTokens: true,
      listsCommands: true,
      model: { choice: { configId: "model", value: "gemini-3-flash-preview" }, requestModel: "gemini-3-flash-preview" },
      loadWipesSameMinute: true,
      retriesRefusalsForMinutes: true,
    },
  },
  {
    id: "opencode",
    packages: ["opencode-ai@1.18.33"],
    // Edits and commands ask (by default OpenCode runs them without asking).
    env: (url) => ({
      OPENCODE_CONFIG_CONTENT: JSON.stringify({ provider: { opencode: { options: { baseURL: `${url}/v1` } } }, permission: { edit: "ask", bash: "ask" } }),
    }),
    first: { configId: "model", value: "opencode/nemotron-3-ultra-free" },
    second: { configId: "mode", value: "plan" },
    turns: {
      api: "chat",
      // A refused call ends OpenCode's turn at once; the model hears of it with the next prompt.
      onRefusal: { ends: "end_turn" },
      plans: "tool-call",
      countsTokens: false,
      listsCommands: true,
      model: { choice: { configId: "model", value: "opencode/nemotron-3-ultra-free" }, requestModel: "nemotron-3-ultra-free" },
    },
  },
  {
    id: "qwen",
    packages: ["@qwen-code/qwen-code@0.15.10"],
    env: (url) => ({ OPENAI_API_KEY: "fake", OPENAI_MODEL: "gpt-4o", OPENAI_BASE_URL: `${url}/v1` }),
    // Without it a failing provider is retried for about 40 minutes (a 429 waits 60 s, 120 s, … ten times).
    homeFiles: () => ({ ".qwen/settings.json": JSON.stringify({ model: { generationConfig: { maxRetries: 0 } } }) }),
    first: { configId: "mode", value: "auto-edit" },
    // Its only other option; the other model it offers (coder-model) would switch to Qwen OAuth.
    second: { configId: "model", value: "$runtime|openai|gpt-4o(openai)" },
    turns: {
      api: "chat",
      // In auto-edit (the first choice) writes do not ask.
      asking: [{ configId: "mode", value: "default" }],
      onRefusal: "continues",
      plans: "plan",
      countsTokens: true,
      listsCommands: true,
      model: { choice: { configId: "model", value: "$runtime|openai|gpt-4o(openai)" }, requestModel: "gpt-4o" },
    },
  },
  {
    id: "copilot",
    packages: ["@github/copilot@1.0.102"],
    // Bring-your-own-key mode: without it session/new is "Authentication required" (it checks a
    // GitHub token against api.github.com); with it Copilot needs no GitHub at all.
    env: (url) => ({ COPILOT_PROVIDER_BASE_URL: `${url}/v1`, COPILOT_PROVIDER_API_KEY: "fake", COPILOT_MODEL: "gpt-4o" }),
    first: { configId: "allow_all", value: "on" },
    second: { configId: "mode", value: "https://agentclientprotocol.com/protocol/session-modes#plan" },
    failsInReply: true,
    mcpQuirk: "no-stdio",
  },
];

/** `$ATRIUM_AGENTS_CACHE`, else `$XDG_CACHE_HOME/atrium-agents`, else `~/.cache/atrium-agents`. */
export function cacheRoot(): string {
  return process.env.ATRIUM_AGENTS_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "atrium-agents");
}

const MARKER_FILE = ".atrium-installed";

/** The agent's own prefix in the cache, named by its pinned versions (scopes left out). */
export function prefixOf(agent: AgentFacts): string {
  return join(cacheRoot(), `${agent.id}_${agent.packages.map((pkg) => pkg.replace(/^@[^/]+\//, "")).join("+")}`);
}

function installed(prefix: string, agent: AgentFacts): boolean {
  const marker = join(prefix, MARKER_FILE);
  return existsSync(marker) && readFileSync(marker, "utf8") === agent.packages.join("\n");
}

/** Why the agent cannot be installed (only: the registry cannot be reached), or undefined. */
export async function skipReason(agent: AgentFacts): Promise<string | undefined> {
  if (installed(prefixOf(agent), agent)) return undefined;
  return registryUnreachable(agent.packages[0]!);
}

/**
 * Installs the agent's packages into its prefix with the real npm, unless a finished install is
 * there (the marker is written last, so a broken half-install is removed and redone). Returns the
 * real path of the prefix and how long the install took (0 when it was cached).
 */
export async function installAgent(agent: AgentFacts): Promise<{ prefix: string; ms: number }> {
  const prefix = prefixOf(agent);
  let ms = 0;
  if (!installed(prefix, agent)) {
    rmSync(prefix, { recursive: true, force: true });
    mkdirSync(prefix, { recursive: true });
    ms = await npmInstallGlobal(prefix, agent.packages, { cwd: cacheRoot(), timeoutMs: 900_000 });
    writeFileSync(join(prefix, MARKER_FILE), agent.packages.join("\n"));
  }
  // The real path: processes are found by it, and the cache may sit behind a symlink (/tmp on macOS).
  return { prefix: realpathSync(prefix), ms };
}
