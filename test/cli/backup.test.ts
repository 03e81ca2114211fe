/**
 * `atrium backup FILE` and `atrium restore FILE` (issue 27): a consistent copy while the server writes
 * a streaming reply, restored after the server stopped; refusals that change nothing.
 */
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runAtrium, builtCommand } from "../helpers/cli-process.ts";
import { withStore } from "../../src/cli/cli-context.ts";
import { dataPaths } from "../../src/config/paths.ts";
import { backUpTo } from "../../src/store/backup.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer } from "../helpers/test-server.ts";
import { readServerDatabase } from "../helpers/test-store.ts";
import { startSessionServer, type DetailBody } from "../sessions/session-helpers.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

test("a backup taken while a reply streams is consistent, 0600, and restores to that moment after the server stopped", async () => {
  // The reply streams until the test lets it end, after the copy; the agent runs in this process.
  const t = await startSessionServer({ agents: "in-process" });
  cleanups.push(() => t.cleanup());
  t.script({
    prompts: {
      "before the backup": [{ chunk: "the reply before" }],
      streaming: [{ chunk: "streamed before the copy, " }, { gate: "copied" }, { chunk: "streamed after it" }],
      "after the backup": [{ chunk: "the reply after" }],
    },
  });
  const home = t.dataDir;
  const sessionId = (await t.newSession()).id;
  await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "before the backup" });
  await t.until(sessionId, (detail) => detail.conversation[1]?.isGenerating === false);
  await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "streaming" });
  const streaming = (await t.until(sessionId, (detail) => detail.conversation[3]?.text === "streamed before the copy, ")).conversation[3]!;
  // What it streamed so far is stored: a reply's text is its delta events, stored a moment after they are sent.
  const storedDeltas = () =>
    readServerDatabase(
      home,
      (db) =>
        db
          .query<{ n: number }, [string]>("SELECT count(*) AS n FROM events WHERE kind = 'session.message.delta' AND json_extract(payload, '$.itemId') = ?")
          .get(streaming.id)!.n,
    );
  await until(
    async () => storedDeltas(),
    (stored) => stored > 0,
  );
  const file = join(home, "copies", "atrium-backup.db");
  const backup = await runAtrium(builtCommand, ["backup", file], home);
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
  const again = await runAtrium(builtCommand, ["backup", file], home);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("exists already");
  const busy = await runAtrium(builtCommand, ["restore", file], home);
  expect(busy.code).toBe(1);
  expect(busy.stderr).toMatch(/another atrium \(pid \d+\) is using this data dir/);

  // Later work, then the restore puts the database back to the copy's moment.
  t.agents.openGate("copied");
  await t.until(sessionId, (detail) => detail.conversation[3]?.isGenerating === false);
  await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "after the backup" });
  await t.until(sessionId, (detail) => detail.conversation[5]?.isGenerating === false);
  await t.server.stop();
  const restored = await runAtrium(builtCommand, ["restore", file], home);
  expect(restored.stderr).toBe("");
  expect(restored.code).toBe(0);
  const kept = /kept at (\S+);/.exec(restored.stdout)?.[1];
  expect(kept && existsSync(kept)).toBe(true);
  expect(statSync(join(home, "atrium.db")).mode & 0o777).toBe(0o600);

  const after = await startTestServer({ dataDir: home });
  cleanups.push(() => after.stop());
  const detail = await until(
    () => after.json<DetailBody>("GET", `/v1/sessions/${sessionId}`),
    (answer) => answer.status === 200 && answer.body.conversation[3]?.isGenerating === false,
  );
  const texts = detail.body.conversation.map((item) => item.text);
  expect(texts).not.toContain("after the backup");
  expect(texts.slice(0, 3)).toEqual(["before the backup", "the reply before", "streaming"]);
  // The reply streaming at the copy's moment: what was stored then, marked interrupted by the restart.
  expect(detail.body.conversation[3]).toMatchObject({ stopReason: "interrupted", text: "streamed before the copy, " });
});

test("a restore is refused for a file that is missing, damaged, not Atrium's, or from a newer Atrium, and changes nothing", async () => {
  const home = makeTempDir("atrium-restore-");
  cleanups.push(() => home.remove());
  // A good backup to spoil (made as `atrium backup` makes one; the command itself is the test above's).
  const file = join(home.path, "good.db");
  withStore(dataPaths(home.path), (store) => backUpTo(store, file));
  const before = readFileSync(join(home.path, "atrium.db"));
  const refused = async (path: string, message: string | RegExp) => {
    const answer = await runAtrium(builtCommand, ["restore", path], home.path);
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
  // The header of a page that holds rows: damage there is found whatever the schema's page layout
  // (bytes spoiled at a fixed offset fell into a page's free space once migrations added tables).
  const damaged = join(home.path, "damaged.db");
  const layout = new Database(file, { readonly: true });
  const { rootpage } = layout.query<{ rootpage: number }, []>("SELECT rootpage FROM sqlite_master WHERE name = 'schema_migrations'").get()!;
  const { page_size: pageSize } = layout.query<{ page_size: number }, []>("PRAGMA page_size").get()!;
  layout.close();
  const bytes = readFileSync(file);
  bytes.fill(0x5a, (rootpage - 1) * pageSize, (rootpage - 1) * pageSize + 12);
  writeFileSync(damaged, bytes);
  await refused(damaged, /damaged|not a database|malformed/);
});
