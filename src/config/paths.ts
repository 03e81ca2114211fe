import { homedir } from "node:os";
import { join } from "node:path";
import { chmodSync, mkdirSync } from "node:fs";

/** Where everything Atrium keeps on disk lives; see DESIGN.md "Names and places". */
export interface DataPaths {
  root: string;
  database: string;
  adminToken: string;
  /** The Web Push (VAPID) key pair, made on first use (0600). */
  vapidKeys: string;
  config: string;
  logs: string;
  logFile: string;
  runtime: string;
  lock: string;
  projects: string;
  worktrees: string;
  skills: string;
  plugins: string;
  accounts: string;
  /** Uploaded files (prompts' attachments). */
  files: string;
  /** Copies of the database taken before a migration changes it. */
  backups: string;
  /** One record per running child process (agents), for the next start to stop what a crash left. */
  children: string;
}

export function resolveDataDir(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (env.ATRIUM_HOME) return env.ATRIUM_HOME;
  if (platform === "darwin") return join(home, "Library", "Application Support", "atrium");
  return join(env.XDG_DATA_HOME || join(home, ".local", "share"), "atrium");
}

export function dataPaths(root: string): DataPaths {
  return {
    root,
    database: join(root, "atrium.db"),
    adminToken: join(root, "token"),
    vapidKeys: join(root, "vapid-keys.json"),
    config: join(root, "config.json"),
    logs: join(root, "logs"),
    logFile: join(root, "logs", "atrium.log"),
    runtime: join(root, "server.json"),
    lock: join(root, "server.lock"),
    projects: join(root, "projects"),
    worktrees: join(root, "worktrees"),
    skills: join(root, "skills"),
    plugins: join(root, "plugins"),
    accounts: join(root, "accounts"),
    files: join(root, "files"),
    backups: join(root, "backups"),
    children: join(root, "children"),
  };
}

/**
 * Creates the data dir and its folders, private to the user (tokens and transcripts live here). A
 * folder made earlier with the caller's umask (install.sh once made the data dir 0755) is narrowed.
 */
export function ensureDataDir(paths: DataPaths): void {
  for (const dir of [paths.root, paths.logs, paths.projects, paths.worktrees, paths.skills, paths.plugins, paths.accounts, paths.files]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
}
