/**
 * Each module's feature markers for /v1/info, in the order the modules are built. Kept apart from the
 * modules, whose code the server evaluates only once its socket listens (a cold start answers health
 * and info first): info lists them from its first answer. A test holds this list to the modules'.
 */
export const MODULE_FEATURES = {
  core: ["events.sse", "events.replay", "tokens.named", "openapi"],
  sync: ["sync"],
  projects: ["projects", "projects.worktrees", "projects.changes", "projects.git", "projects.pull-requests"],
  files: [],
  harnesses: ["harnesses"],
  skills: ["skills"],
  mcps: ["mcps", "mcps.oauth"],
  plugins: ["plugins", "plugins.panes", "plugins.tools.mcp"],
  sessions: ["sessions"],
  updates: ["update"],
  clients: ["clients.windows"],
  push: ["push.webpush"],
  machines: ["machines", "machines.sync"],
  terminals: ["terminals", "terminals.socket"],
  projectFiles: ["files", "files.search"],
  console: ["console"],
} as const satisfies Record<string, readonly string[]>;

/** Markers of what this server can do (the core's and every module's), so clients can adapt without version sniffing. */
export const FEATURES: string[] = Object.values(MODULE_FEATURES).flat();
