import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ErrorBody } from "../../src/schemas/common.ts";
import { PtyTerminal, PtyTerminalList } from "../../src/schemas/terminals.ts";
import { sessionProcesses } from "../../src/process/process-session.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { startTerminalServer, type TerminalServer } from "./terminal-fixtures.ts";

let s: TerminalServer;

beforeAll(async () => {
  s = await startTerminalServer();
});
afterAll(() => s.stop());

/** The shell's pid, which is its session's id, as the shell itself says it. */
async function shellPid(client: Awaited<ReturnType<TerminalServer["attach"]>>): Promise<number> {
  client.type("echo pid=$$.\n");
  return Number((await client.waitFor(/pid=(\d+)\./))[1]);
}

/**
 * Whether `sleep` runs as the terminal's foreground process group. Only then does a Ctrl-C reach it: typed
 * between the shell's fork and its handing the terminal to the job, the interrupt goes to the shell.
 */
function sleepInForeground(sessionId: number): boolean {
  return sessionProcesses(sessionId).some((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command name: state, ppid, pgrp, session, tty_nr, tpgid (the terminal's foreground group).
      const [, , group, , , foregroundGroup] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return stat.includes("(sleep)") && group === foregroundGroup;
    } catch {
      return false;
    }
  });
}

describe("a terminal is a real shell on a PTY", () => {
  test("`tty` prints a /dev/pts path, in the project's folder, with TERM=xterm-256color", async () => {
    const terminal = await s.create();
    expect(terminal).toMatchObject({ state: "running", exitCode: null, command: null, cols: 80, rows: 24, sessionId: null });
    const project = await s.t.json<{ locations: Array<{ folderPath: string }> }>("GET", `/v1/projects/${s.projectId}`);
    expect(terminal.cwd).toBe(project.body.locations[0]!.folderPath);
    const client = await s.attach(terminal.id);
    client.type("tty; pwd; echo term=$TERM.\n");
    await client.waitFor(/\/dev\/pts\/\d+/);
    await client.waitFor(/term=xterm-256color\./);
    expect(client.text).toContain(terminal.cwd);
    const got = await s.t.json("GET", `/v1/terminals/${terminal.id}`);
    assertMatchesSchema(PtyTerminal, got.body);
    await s.t.json("DELETE", `/v1/terminals/${terminal.id}`);
  });

  test("`stty size` follows a resize, by PATCH and by the socket's resize message", async () => {
    const terminal = await s.create({ cols: 100, rows: 30 });
    const client = await s.attach(terminal.id);
    client.type("stty size\n");
    await client.waitFor(/30 100/);
    const patched = await s.t.json("PATCH", `/v1/terminals/${terminal.id}`, { cols: 120, rows: 40 });
    expect(patched.status).toBe(200);
    assertMatchesSchema(PtyTerminal, patched.body);
    client.type("stty size\n");
    await client.waitFor(/40 120/);
    client.resize(61, 17);
    client.type("stty size\n");
    await client.waitFor(/17 61/);
    expect((await s.t.json<PtyTerminal>("GET", `/v1/terminals/${terminal.id}`)).body).toMatchObject({ cols: 61, rows: 17 });
    // A bad size is refused, and nothing changes.
    const bad = await s.t.json("PATCH", `/v1/terminals/${terminal.id}`, { cols: 0, rows: 40 });
    expect(bad.status).toBe(400);
    assertMatchesSchema(ErrorBody, bad.body);
    client.resize(5000, 1);
    await until(
      async () => client.controls,
      (controls) => controls.some((control) => control.type === "error"),
    );
    expect((await s.t.json<PtyTerminal>("GET", `/v1/terminals/${terminal.id}`)).body).toMatchObject({ cols: 61, rows: 17 });
    await s.t.json("DELETE", `/v1/terminals/${terminal.id}`);
  });

  test("Ctrl-C interrupts `sleep 100`", async () => {
    const terminal = await s.create();
    const client = await s.attach(terminal.id);
    const pid = await shellPid(client);
    client.type("sleep 100; echo slept\n");
    await until(
      async () => sleepInForeground(pid),
      (ready) => ready,
    );
    client.type("\x03");
    client.type("echo status=$?.\n");
    await client.waitFor(/status=130\./);
    expect(client.text).not.toMatch(/\r\nslept\r\n/);
    await s.t.json("DELETE", `/v1/terminals/${terminal.id}`);
  });

  test("the exit code is recorded; the events say created and exited, never the output", async () => {
    const cursor = await s.t.ready();
    const terminal = await s.create({ command: "echo secret-output; exit 7" });
    expect(terminal.command).toBe("echo secret-output; exit 7");
    const exited = await until(
      async () => (await s.t.json<PtyTerminal>("GET", `/v1/terminals/${terminal.id}`)).body,
      (body) => body.state === "exited",
    );
    expect(exited).toMatchObject({ state: "exited", exitCode: 7, signal: null });
    assertMatchesSchema(PtyTerminal, exited);
    // Attached after the exit: the output it kept, then the exit, then the socket closes.
    const late = await s.attach(terminal.id);
    await late.waitFor(/secret-output/);
    expect(await late.waitForClose()).toBe(1000);
    expect(late.controls).toEqual([{ type: "exit", exitCode: 7, signal: null }]);
    const events = (await replayedEvents(s.t, cursor)).filter((event) => event.subjectId === terminal.id);
    expect(events.map((event) => event.kind)).toEqual(["terminal.created", "terminal.exited"]);
    expect(JSON.stringify(events)).not.toContain("secret-output\r");
  });

  test("two clients see the same output; a client that comes back gets the recent output first", async () => {
    const terminal = await s.create();
    const [first, second] = [await s.attach(terminal.id), await s.attach(terminal.id)];
    first.type("echo one-$((6*7))\n");
    await first.waitFor(/one-42/);
    await second.waitFor(/one-42/);
    second.type("echo two-$((6*8))\n");
    await first.waitFor(/two-48/);
    first.close();
    await first.waitForClose();
    second.type("echo while-away\n");
    await second.waitFor(/while-away\r\n/);
    const back = await s.attach(terminal.id);
    await back.waitFor(/one-42[\s\S]*two-48[\s\S]*while-away/);
    back.type("echo live-again\n");
    await back.waitFor(/live-again\r\n/);
    await second.waitFor(/live-again\r\n/);
    await s.t.json("DELETE", `/v1/terminals/${terminal.id}`);
  });

  test("DELETE ends the shell and everything it started: nothing of its session is left in /proc", async () => {
    const terminal = await s.create();
    const client = await s.attach(terminal.id);
    const pid = await shellPid(client);
    // A background job (a process group of its own) and a foreground one.
    client.type("sleep 300 & sleep 400\n");
    await until(
      async () => sessionProcesses(pid),
      (members) => members.length >= 3,
    );
    const deleted = await s.t.json<PtyTerminal>("DELETE", `/v1/terminals/${terminal.id}`);
    expect(deleted.status).toBe(200);
    assertMatchesSchema(PtyTerminal, deleted.body);
    expect(deleted.body.state).toBe("exited");
    expect(sessionProcesses(pid)).toEqual([]);
    expect(await client.waitForClose()).toBe(1000);
    const gone = await s.t.json("GET", `/v1/terminals/${terminal.id}`);
    expect(gone.status).toBe(404);
    assertMatchesSchema(ErrorBody, gone.body);
  });

  test("the list is paged oldest first, and filtered by project", async () => {
    const made = [await s.create(), await s.create(), await s.create()];
    const seen: string[] = [];
    let path: string | null = `/v1/terminals?limit=2&projectId=${s.projectId}`;
    while (path) {
      const response: Response = await s.t.api(path);
      expect(response.status).toBe(200);
      const page = (await response.json()) as Array<{ id: string }>;
      assertMatchesSchema(PtyTerminalList, page);
      expect(page.length).toBeLessThanOrEqual(2);
      seen.push(...page.map((terminal) => terminal.id));
      path = /<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "")?.[1] ?? null;
    }
    expect(seen.filter((id) => made.some((terminal) => terminal.id === id))).toEqual(made.map((terminal) => terminal.id));
    const other = await s.t.api("/v1/terminals?projectId=prj_none");
    expect(await other.json()).toEqual([]);
    for (const terminal of made) await s.t.json("DELETE", `/v1/terminals/${terminal.id}`);
  });
});
