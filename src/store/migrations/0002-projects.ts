import type { Migration } from "../migrations.ts";

export const projectsMigration: Migration = {
  version: 2,
  name: "projects, their locations, and session worktrees",
  sql: `
    CREATE TABLE projects (
      id TEXT PRIMARY KEY,
      custom_name TEXT,
      default_name TEXT NOT NULL,
      created_at TEXT NOT NULL,
      repo_url TEXT,
      repo_key TEXT UNIQUE,
      custom_worktree_remote TEXT,
      custom_worktree_branch TEXT,
      detected_remote TEXT,
      detected_branch TEXT,
      default_run_location TEXT,
      is_scratch INTEGER NOT NULL,
      updated_at TEXT NOT NULL
    );

    CREATE TABLE project_locations (
      id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      server_id TEXT NOT NULL,
      folder_path TEXT NOT NULL,
      created_at TEXT NOT NULL,
      is_git_repository INTEGER NOT NULL,
      created_by_server INTEGER NOT NULL,
      UNIQUE (server_id, folder_path)
    );
    CREATE INDEX project_locations_by_project ON project_locations (project_id);

    CREATE TABLE worktrees (
      id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      session_id TEXT NOT NULL,
      name TEXT NOT NULL,
      branch TEXT NOT NULL,
      path TEXT NOT NULL UNIQUE,
      repository_path TEXT NOT NULL,
      base_ref TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX worktrees_by_project ON worktrees (project_id);
  `,
};
