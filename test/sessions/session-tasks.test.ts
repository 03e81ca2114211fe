import { afterEach, describe, expect, test } from "bun:test";
import { processAlive } from "../helpers/processes.ts";
import { until } from "../helpers/poll.ts";
import type { Static } from "@sinclair/typebox";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { BackgroundTaskOutput } from "../../src/schemas/sessions.ts";
import { lastReply, startSessionServer, type SessionTestServer } from "./session-helpers.ts";

type TaskOutput = Static<typeof BackgroundTaskOutput>;

let t: SessionTestServer;
afterEach(async () => {
  await t.cleanup();
});

describe("terminals the agent runs (background tasks)", () => {
  test("a command run to its end: the agent reads its output and exit code, then releases it", async () => {
    t = await startSessionServer({ agents: "in-process" });
    t.script({
      prompts: {
        run: [{ terminal: { command: "sh", args: ["-c", "echo out; echo err >&2; exit 3"], wait: true, release: true } }],
        limited: [{ terminal: { command: "sh", args: ["-c", "printf 'héllo wörld'"], outputByteLimit: 6, wait: true, release: true } }],
        outside: [{ terminal: { command: "pwd", cwd: "/", wait: true } }],
      },
    });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "run" });
    const ran = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(lastReply(ran)!.text).toMatch(/^exit 3: (out\nerr\n|err\nout\n)$/);
    expect(ran.backgroundTasks).toEqual([]);

    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "limited" });
    const limited = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn" && lastReply(d)!.text.includes("truncated"));
    // The newest bytes are kept, cut at a character boundary.
    expect(lastReply(limited)!.text).toBe("exit 0 (truncated): wörld");

    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "outside" });
    const refused = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn" && lastReply(d)!.text.startsWith("refused"));
    expect(lastReply(refused)!.text).toContain("outside the session's folders");
  });

  test("a command left running is a background task whose output can be read; it ends with the agent", async () => {
    t = await startSessionServer({ agents: "in-process" });
    t.script({
      prompts: {
        serve: [{ terminal: { command: "sh", args: ["-c", "echo $$; echo ready; sleep 60"] } }, { chunk: "started" }],
      },
    });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "serve" });
    const started = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn" && d.backgroundTasks.length === 1);
    const task = started.backgroundTasks[0]!;
    expect(task).toMatchObject({ description: "sh -c echo $$; echo ready; sleep 60", status: "running", taskType: "terminal", readOnly: true });
    expect(task.toolUseId).toBe(`run-${task.terminalKey}`);

    const read = await until(
      () => t.json<TaskOutput>("GET", `/v1/sessions/${session.id}/tasks/${task.terminalKey}`),
      (answer) => answer.body.output.includes("ready"),
      5000,
    );
    expect(read.status).toBe(200);
    assertMatchesSchema(BackgroundTaskOutput, read.body);
    expect(read.body).toMatchObject({ truncated: false, exitCode: null, signal: null });
    const pid = Number(read.body.output.split("\n")[0]);
    expect(processAlive(pid)).toBe(true);

    expect((await t.json("GET", `/v1/sessions/${session.id}/tasks/term_nope`)).status).toBe(404);
    expect((await t.json("GET", `/v1/sessions/ses_nope/tasks/${task.terminalKey}`)).status).toBe(404);

    const events = await t.json<Array<{ kind: string; payload: { backgroundTasks: Array<{ status: string }> } }>>(
      "GET",
      `/v1/sessions/${session.id}/events?limit=1000`,
    );
    const published = events.body.filter((event) => event.kind === "session.tasks").map((event) => event.payload.backgroundTasks.map((each) => each.status));
    expect(published).toContainEqual(["running"]);

    // Deleting the session stops its agent, and the command with it.
    await t.json("DELETE", `/v1/sessions/${session.id}`);
    await until(
      async () => processAlive(pid),
      (alive) => !alive,
      5000,
    );
  });
});
