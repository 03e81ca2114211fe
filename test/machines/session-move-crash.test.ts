import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Session, SessionDetail } from "../../src/schemas/sessions.ts";
import { builtCommand, startServe, type ServeProcess } from "../helpers/cli-process.ts";
import { git, makeBareRepo, makeCheckout } from "../helpers/git-fixtures.ts";
import { logSays } from "../helpers/locked-database.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// kill -9 of either server in the middle of a session's move: each is the compiled `atrium serve` in a
// process of its own, stopped at a named step by ATRIUM_TEST_MOVE_STOP_AT (the move waits there, the
// test kills it), then started again on its data dir and port. Exactly one live session must remain,
// with its conversation and its uncommitted change.

const STOPPED = "session move stopped at a test step";

/** One machine: a data dir, config.json naming it, and the server running on it (restarted on the same port). */
class Machine {
  readonly home = makeTempDir("atrium-move-crash-");
  serve!: ServeProcess;

  constructor(readonly name: string) {
    writeFileSync(join(this.home.path, "config.json"), JSON.stringify({ machineId: `mch-${name}`, machineName: name }));
  }

  get id(): string {
    return `mch-${this.name}`;
  }

  async start(stopAt?: string): Promise<void> {
    const port = this.serve ? ["--port", new URL(this.serve.url).port] : ["--port", "0"];
    this.serve = await startServe(builtCommand, this.home.path, port, stopAt ? { ATRIUM_TEST_MOVE_STOP_AT: stopAt } : {});
  }

  async kill(): Promise<void> {
    this.serve.child.kill("SIGKILL");
    await this.serve.child.exited;
  }

  async api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const token = readFileSync(join(this.home.path, "token"), "utf8").trim();
    const response = await fetch(this.serve.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  /** The sessions here that are live: not moved away, nor moving. */
  async liveSessions(): Promise<Session[]> {
    const listed = await this.api<Session[]>("GET", "/v1/sessions");
    return listed.body.filter((session) => session.move === null);
  }

  async stop(): Promise<void> {
    this.serve?.child.kill("SIGTERM");
    await this.serve?.child.exited;
    this.home.remove();
  }
}

const machines: Machine[] = [];
const dirs: Array<ReturnType<typeof makeTempDir>> = [];
afterEach(async () => {
  for (const machine of machines.splice(0)) await machine.stop();
  for (const dir of dirs.splice(0)) dir.remove();
});

/**
 * Two paired machines, each with a clone of one repository as a project, and on the studio a session
 * of the echo agent with one turn and an uncommitted file; the laptop runs stopped at `laptopStopAt`.
 */
async function aMoveAbout(studioStopAt: string | undefined, laptopStopAt: string | undefined) {
  const studio = new Machine("studio");
  const laptop = new Machine("laptop");
  machines.push(studio, laptop);
  await Promise.all([studio.start(studioStopAt), laptop.start(laptopStopAt)]);
  const code = await studio.api<{ code: string }>("POST", "/v1/machines/pairing-codes");
  expect((await laptop.api("POST", "/v1/machines/pair", { url: studio.serve.url, code: code.body.code })).status).toBe(201);
  const dir = makeTempDir("atrium-move-repo-");
  dirs.push(dir);
  const { bare } = makeBareRepo(dir.path);
  const project = async (machine: Machine) =>
    (await machine.api<{ id: string }>("POST", "/v1/projects", { folderPath: makeCheckout(dir.path, bare, machine.name) })).body.id;
  const projectId = await project(studio);
  await project(laptop);
  // The echo harness is ready once the first scan has run.
  const created = await until(
    () => studio.api<Session>("POST", "/v1/sessions", { projectId, harnessId: "echo", runLocation: "worktree" }),
    (answer) => answer.status === 201,
  );
  const session = created.body;
  await studio.api("POST", `/v1/sessions/${session.id}/prompts`, { text: "remember the word lantern" });
  await until(
    () => studio.api<SessionDetail>("GET", `/v1/sessions/${session.id}`),
    (detail) => detail.body.conversation.length === 2 && !detail.body.conversation[1]!.isGenerating,
  );
  writeFileSync(join(session.cwd, "notes.txt"), "uncommitted work\n");
  return { studio, laptop, session };
}

/**
 * A move from the studio to the laptop, started without waiting for its answer (the server answering
 * it is killed first) and stopped at `step` on `side`, which the test then kills.
 */
async function stoppedAt(side: "studio" | "laptop", step: string) {
  const world = await aMoveAbout(side === "studio" ? step : undefined, side === "laptop" ? step : undefined);
  void world.studio.api("POST", `/v1/sessions/${world.session.id}/move`, { machineId: world.laptop.id }).catch(() => undefined);
  await logSays(world[side].home.path, STOPPED);
  return world;
}

/** Exactly one live session across the two machines, holding the conversation and the uncommitted file. */
async function exactlyOneLive(studio: Machine, laptop: Machine, where: Machine): Promise<Session> {
  const [onStudio, onLaptop] = await until(
    () => Promise.all([studio.liveSessions(), laptop.liveSessions()]),
    ([a, b]) => a.length + b.length === 1 && (where === studio ? a : b).length === 1,
    15_000,
  );
  const live = [...onStudio, ...onLaptop][0]!;
  const detail = await where.api<SessionDetail>("GET", `/v1/sessions/${live.id}`);
  expect(detail.body.conversation.map((item) => item.text)[0]).toBe("remember the word lantern");
  expect(readFileSync(join(live.cwd, "notes.txt"), "utf8")).toBe("uncommitted work\n");
  expect(git(["ls-files", "--others", "--exclude-standard"], live.cwd)).toBe("notes.txt");
  return live;
}

describe("kill -9 in the middle of a move leaves exactly one live session, nothing lost", () => {
  test("the source killed once the target stored the copy, before deciding: the session stays on the source, the target drops its copy", async () => {
    const { studio, laptop, session } = await stoppedAt("studio", "staged");
    // While it moves, the source takes no prompt.
    const refused = await studio.api<{ error: string }>("POST", `/v1/sessions/${session.id}/prompts`, { text: "now?" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("the session is moving to laptop");
    await studio.kill();
    await studio.start();
    const live = await exactlyOneLive(studio, laptop, studio);
    expect(live.id).toBe(session.id);
    expect(live.status).toContain("the move to laptop was interrupted by a restart");
  }, 60_000);

  test("the target killed once it stored the copy, before answering: the source gives up and stays live; the target drops its copy on restart", async () => {
    const { studio, laptop, session } = await stoppedAt("laptop", "staged-here");
    await laptop.kill();
    await until(
      () => studio.liveSessions(),
      (live) => live.length === 1,
    );
    await laptop.start();
    const live = await exactlyOneLive(studio, laptop, studio);
    expect(live.id).toBe(session.id);
    expect(live.status).toContain("the move to laptop did not happen");
  }, 60_000);

  test.each([
    ["the source killed just after deciding: on its restart it tells the target, whose copy goes live", "studio", "committed"],
    ["the target killed after the source decided, before going live: on its restart it asks the source, and its copy goes live", "laptop", "confirming"],
  ] as const)(
    "%s",
    async (_name, side, step) => {
      const { studio, laptop, session, [side]: killed } = await stoppedAt(side, step);
      await killed.kill();
      await killed.start();
      const live = await exactlyOneLive(studio, laptop, laptop);
      const left = await studio.api<{ session: Session }>("GET", `/v1/sessions/${session.id}`);
      expect(left.body.session.move).toMatchObject({ state: "moved", machineId: laptop.id, sessionId: live.id });
    },
    60_000,
  );
});
