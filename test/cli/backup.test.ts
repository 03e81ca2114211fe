/**
 * `atrium backup FILE` and `atrium restore FILE` (issue 27): a consistent copy while the server writes
 * a streaming reply, restored after the server stopped; refusals that change nothing.
 */
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { apiClient } from "../helpers/api-client.ts";
import { runAtrium, sourceCommand, startServe, type ServeProcess } from "../helpers/cli-process.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import type { DetailBody } from "../sessions/session-helpers.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(home: string): Promise<ServeProcess> {
  const started = await startServe(sourceCommand, home);
  cleanups.push(async () => {
    started.child.kill("SIGTERM");
    await started.child.exited;
  });
  return started;
}

async function stop(server: ServeProcess): Promise<void> {
  server.child.kill("SIGTERM");
  await server.child.exited;
}

test("a backup taken while a reply streams is consistent, 0600, and restores to that moment after the server stopped", async () => {
  const home = makeTempDir("atrium-backup-");
  cleanups.push(() => home.remove());
  const server = await serve(home.path);
  const api = apiClient(server.url, readFileSync(join(home.path, "token"), "utf8").trim());
  const project = await api.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
  const session = await api.json<{ id: string }>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "echo" });
  const sessionId = session.body.id;
  await api.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "before the backup" });
  await until(
    () => api.json<DetailBody>("GET", `/v1/sessions/${sessionId}`),
    (answer) => answer.body.conversation[1]?.isGenerating === false,
  );
  // A long reply streams while the copy is taken.
  await api.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "/long 50000" });
  await until(
    () => api.json<DetailBody>("GET", `/v1/sessions/${sessionId}`),
    (answer) => (answer.body.conversation[3]?.text.length ?? 0) > 1000,
  );
  const file = join(home.path, "copies", "atrium-backup.db");
  const backup = await runAtrium(sourceCommand, ["backup", file], home.path);
  expect(backup.stderr).toBe("");
  expect(backup.code).toBe(0);
  expect(backup.stdout).toMatch(/^backed up to .*atrium-backup\.db \(schema \d+, [\d.]+ MiB\)\n$/);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const copy = new Database(file, { readonly: true });
  const copied = copy.query<{ text: string }, []>("SELECT text FROM conversation_items ORDER BY seq").all();
  expect(copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
  copy.close();
  // The four items as of the copy's moment (a reply's text is in its delta events, not this column).
  expect(copied.length).toBe(4);
  expect(copied[0]!.text).toBe("before the backup");

  // A second backup to the same file is refused; restoring while the server runs is refused: nothing changes.
  const again = await runAtrium(sourceCommand, ["backup", file], home.path);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("exists already");
  const busy = await runAtrium(sourceCommand, ["restore", file], home.path);
  expect(busy.code).toBe(1);
  expect(busy.stderr).toMatch(/another atrium \(pid \d+\) is using this data dir/);

  // Later work, then the restore puts the database back to the copy's moment.
  await until(
    () => api.json<DetailBody>("GET", `/v1/sessions/${sessionId}`),
    (answer) => answer.body.conversation[3]?.isGenerating === false,
    60_000,
  );
  await api.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "after the backup" });
  await until(
    () => api.json<DetailBody>("GET", `/v1/sessions/${sessionId}`),
    (answer) => answer.body.conversation[5]?.isGenerating === false,
  );
  await stop(server);
  const restored = await runAtrium(sourceCommand, ["restore", file], home.path);
  expect(restored.stderr).toBe("");
  expect(restored.code).toBe(0);
  const kept = /kept at (\S+);/.exec(restored.stdout)?.[1];
  expect(kept && existsSync(kept)).toBe(true);
  expect(statSync(join(home.path, "atrium.db")).mode & 0o777).toBe(0o600);

  const after = await serve(home.path);
  const restoredApi = apiClient(after.url, readFileSync(join(home.path, "token"), "utf8").trim());
  const detail = await until(
    () => restoredApi.json<DetailBody>("GET", `/v1/sessions/${sessionId}`),
    (answer) => answer.status === 200 && answer.body.conversation[3]?.isGenerating === false,
  );
  const texts = detail.body.conversation.map((item) => item.text);
  expect(texts).not.toContain("after the backup");
  expect(texts.slice(0, 3)).toEqual(["before the backup", "Echo: before the backup", "/long 50000"]);
  // The reply streaming at the copy's moment: what was stored then, marked interrupted by the restart.
  expect(detail.body.conversation[3]).toMatchObject({ stopReason: "interrupted" });
  expect(detail.body.conversation[3]!.text).toStartWith("chunk 0 chunk 1 ");
}, 120_000);

test("a restore is refused for a file that is missing, damaged, not Atrium's, or from a newer Atrium, and changes nothing", async () => {
  const home = makeTempDir("atrium-restore-");
  cleanups.push(() => home.remove());
  const file = join(home.path, "good.db");
  expect((await runAtrium(sourceCommand, ["backup", file], home.path)).code).toBe(0);
  const before = readFileSync(join(home.path, "atrium.db"));
  const refused = async (path: string, message: string | RegExp) => {
    const answer = await runAtrium(sourceCommand, ["restore", path], home.path);
    expect(answer.code).toBe(1);
    expect(answer.stderr).toMatch(message);
    expect(readFileSync(join(home.path, "atrium.db")).equals(before)).toBe(true);
  };
  await refused(join(home.path, "missing.db"), "does not exist");
  writeFileSync(join(home.path, "text.db"), "not a database at all");
  await refused(join(home.path, "text.db"), /is not a database|cannot be opened/);
  const other = new Database(join(home.path, "other.db"));
  other.exec("CREATE TABLE notes (text TEXT)");
  other.close();
  await refused(join(home.path, "other.db"), "is not an Atrium database");
  const newer = join(home.path, "newer.db");
  writeFileSync(newer, readFileSync(file));
  const db = new Database(newer);
  db.exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'from the future', '2030-01-01T00:00:00Z')");
  db.close();
  await refused(newer, "newer than this Atrium knows");
  const damaged = join(home.path, "damaged.db");
  const bytes = readFileSync(file);
  bytes.fill(0x5a, 4096 + 100, 4096 + 400);
  writeFileSync(damaged, bytes);
  await refused(damaged, /damaged|not a database|malformed/);
});
