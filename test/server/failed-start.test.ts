/**
 * A start that fails after it took the port (a module's create throws) gives back everything it
 * took: the next start on the same data dir and port succeeds.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer } from "../helpers/test-server.ts";

test("a start that fails once it listens leaves neither the port, nor the database, nor the lock held", async () => {
  const home = makeTempDir();
  try {
    const first = await startTestServer({ dataDir: home.path });
    const port = first.server.port;
    await first.stop();

    // The harnesses module refuses a harness of config.json that takes a built-in id: a failure in the
    // modules phase, after the early listener bound the port and the core was built.
    const clash = { harnesses: [{ id: "claude", name: "Mine", executable: "my-claude" }] };
    const failed = startTestServer({ dataDir: home.path, port, config: clash });
    await expect(failed).rejects.toThrow('declares a harness "claude", which is a built-in id');
    expect(existsSync(join(home.path, "server.lock"))).toBe(false);
    expect(filesOpenUnder(home.path)).toEqual([]);

    const again = await startTestServer({ dataDir: home.path, port });
    try {
      expect(again.server.port).toBe(port);
      expect((await again.api("/v1/sessions")).status).toBe(200);
    } finally {
      await again.stop();
    }
  } finally {
    home.remove();
  }
});

/** The files under `dir` this process holds open (Linux: its /proc/self/fd links). */
function filesOpenUnder(dir: string): string[] {
  const targets = readdirSync("/proc/self/fd").map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return ""; // closed while listed
    }
  });
  return targets.filter((target) => target.startsWith(`${dir}/`));
}
