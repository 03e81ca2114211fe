import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runTurns, serverLogLines } from "../lib/atrium.ts";
import { committedRepository, git } from "../lib/git-repository.ts";
import { measurement } from "../lib/measurement.ts";
import { pairTwo, type PairedServer } from "../lib/paired.ts";
import { median, medianOf, ratio, timed } from "../lib/stats.ts";

const TURNS = 500;
const DIFF_BYTES = 10 * 2 ** 20;

/** What the source logged it sent for its last move (src/sessions/session-moves.ts). */
function lastCopy(server: PairedServer) {
  const line = serverLogLines(server.home).findLast((logged) => logged.msg === "copied a session to another machine");
  if (!line) throw new Error("the source logged no copy");
  return line as unknown as { bytes: number; patchBytes: number; items: number };
}

/** A move of a session with 1,000 messages and a 10 MB uncommitted change between two compiled servers on loopback. */
export const sessionMove = measurement({
  key: "move",
  title: "Moving a session of 1,000 messages and a 10 MB uncommitted change to a paired machine",
  seed: {
    what:
      `two compiled servers paired on loopback, each with a clone of one repository as a project; on A an echo session in a worktree ` +
      `with ${TURNS} turns (${TURNS * 2} messages), a commit on its branch and a ${DIFF_BYTES / 2 ** 20} MiB untracked text file (random hex).`,
    async run(bench) {
      const { a, b } = await pairTwo(bench, "echo");
      const dir = bench.tempDir("move-repos");
      committedRepository(join(dir, "origin"), [{ path: "README.md", text: "# moved\n" }]);
      for (const [server, clone] of [
        [a, "a"],
        [b, "b"],
      ] as const) {
        git(["clone", "--quiet", join(dir, "origin"), clone], dir);
        await server.atrium.call(201, "POST", "/v1/projects", { folderPath: join(dir, clone) });
      }
      const projectId = (await a.atrium.call<{ id: string }[]>(200, "GET", "/v1/projects"))[0]!.id;
      const session = await a.atrium.call<{ id: string; cwd: string }>(201, "POST", "/v1/sessions", { projectId, harnessId: "echo", runLocation: "worktree" });
      await runTurns(
        a.atrium,
        session.id,
        Array.from({ length: TURNS }, (_, turn) => `turn ${turn}: what changed in the session's folder?`),
        300_000,
      );
      writeFileSync(join(session.cwd, "committed.txt"), "on the branch\n");
      const identity = ["-c", "user.name=bench", "-c", "user.email=bench@atrium.invalid"];
      git(["add", "committed.txt"], session.cwd);
      git([...identity, "commit", "--quiet", "-m", "the session's commit"], session.cwd);
      writeFileSync(
        join(session.cwd, "large.txt"),
        randomBytes(DIFF_BYTES / 2)
          .toString("hex")
          .replace(/(.{100})/g, "$1\n"),
      );
      const sink = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (request) => new Response(String((await request.arrayBuffer()).byteLength)) });
      bench.defer(() => sink.stop(true));
      // `holder` holds the session now, as `sessionId` (each round moves it to the other); `sink` reads a body whole and
      // answers, for the baseline's copy of as many bytes as the last move sent (`lastBytes`).
      return { servers: [a, b], holder: 0, sessionId: session.id, sink, lastBytes: 0 };
    },
  },
  action: {
    what:
      "POST /v1/sessions/{id}/move to the other server, timed to its answer (the copy stored there, the decision made, the copy live); " +
      "bytes = the JSON the source sent (its log). Each round moves the session back the other way.",
    async run(world) {
      const source = world.servers[world.holder]!;
      const target = world.servers[1 - world.holder]!;
      const { ms, value } = await timed(() =>
        source.atrium.call<{ move: { sessionId: string } }>(200, "POST", `/v1/sessions/${world.sessionId}/move`, { machineId: target.machineId }),
      );
      const copy = lastCopy(source);
      Object.assign(world, { holder: 1 - world.holder, sessionId: value.move.sessionId, lastBytes: copy.bytes });
      return { ms, ...copy };
    },
  },
  baseline: {
    what:
      "on the server that now holds it, the same working tree packed by git alone (git bundle of HEAD not on a remote, git add -A into " +
      "a private index, git diff --binary) and as many bytes as the move sent POSTed over loopback HTTP to a server that reads them whole.",
    async run(world) {
      const holder = world.servers[world.holder]!;
      const { cwd } = (await holder.atrium.call<{ session: { cwd: string } }>(200, "GET", `/v1/sessions/${world.sessionId}?limit=1`)).session;
      const scratch = mkdtempSync(join(holder.home, "baseline-"));
      const { ms } = await timed(async () => {
        git(["bundle", "create", "--quiet", join(scratch, "b.bundle"), "HEAD", "--not", "--remotes"], cwd);
        const env = { GIT_INDEX_FILE: join(scratch, "index") };
        git(["read-tree", "HEAD"], cwd, undefined, env);
        git(["add", "-A"], cwd, undefined, env);
        git(["diff", "--cached", "--binary", "HEAD"], cwd, undefined, env);
        await fetch(`http://127.0.0.1:${world.sink.port}/`, { method: "POST", body: new Uint8Array(world.lastBytes) }).then((answer) => answer.text());
      });
      rmSync(scratch, { recursive: true, force: true });
      return { ms };
    },
  },
  rounds: { warmup: 1, measured: 4 },
  figures({ action, baseline }) {
    const moveMs = medianOf(action, (round) => round.ms);
    const floorMs = medianOf(baseline, (round) => round.ms);
    return [
      { label: "move, request -> answered (live on the other machine), p50", value: moveMs, unit: "ms" },
      { label: "bytes sent (the copy's JSON)", value: median(action.map((round) => round.bytes)) / 2 ** 20, unit: "MiB" },
      { label: "of which the uncommitted change's diff", value: median(action.map((round) => round.patchBytes)) / 2 ** 20, unit: "MiB" },
      { label: "conversation items copied", value: median(action.map((round) => round.items)), unit: "count" },
      { label: "git alone + the same bytes over loopback HTTP (baseline), p50", value: floorMs, unit: "ms" },
      { label: "move / baseline", value: ratio(moveMs, floorMs), unit: "ratio" },
    ];
  },
});
