import type { Migration } from "../migrations.ts";

export const promptMentionsMigration: Migration = {
  version: 18,
  name: "prompt mentions: files of the session's folder a queued prompt names (@path)",
  sql: `ALTER TABLE prompt_queue ADD COLUMN mentions TEXT NOT NULL DEFAULT '[]';`,
};
