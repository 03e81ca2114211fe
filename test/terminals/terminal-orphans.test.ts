import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sessionProcesses } from "../../src/process/process-session.ts";
import { apiClient } from "../helpers/api-client.ts";
import { builtCommand, startServe, type ServeProcess } from "../helpers/cli-process.ts";
import { until } from "../helpers/poll.ts";
import { processAlive } from "../helpers/processes.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { TerminalSocketClient, socketUrl, TEST_SHELL_ENV } from "./terminal-fixtures.ts";

const home = makeTempDir("atrium-terminal-orphans-");
let serve: ServeProcess | undefined;
let shellPid = 0;

afterAll(async () => {
  serve?.child.kill("SIGKILL");
  await serve?.child.exited;
  if (shellPid > 0) for (const pid of sessionProcesses(shellPid)) process.kill(pid, "SIGKILL");
  home.remove();
});

test("after a kill -9 of the server, the next start ends the terminal it left", async () => {
  const env = { SHELL: TEST_SHELL_ENV.SHELL };
  serve = await startServe(builtCommand, home.path, ["--port", "0"], env);
  const token = readFileSync(join(home.path, "token"), "utf8").trim();
  const call = apiClient(serve.url, token);
  const project = await call.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
  // It ignores the hang-up the server's death sends through the PTY, so only the recorded pid ends it.
  const terminal = await call.json<{ id: string }>("POST", "/v1/terminals", {
    projectId: project.body.id,
    cols: 80,
    rows: 24,
    command: "trap '' HUP; echo pid=$$.; sleep 300",
  });
  // The whole answer, so a refusal says why.
  expect(terminal).toMatchObject({ status: 201 });
  const client = await TerminalSocketClient.open(socketUrl(serve.url, terminal.body.id), { authorization: `Bearer ${token}` });
  shellPid = Number((await client.waitFor(/pid=(\d+)\./))[1]);
  await until(
    async () => sessionProcesses(shellPid),
    (members) => members.length === 2,
  );
  serve.child.kill("SIGKILL");
  await serve.child.exited;
  await client.waitForClose();
  expect(processAlive(shellPid)).toBe(true);
  serve = await startServe(builtCommand, home.path, ["--port", "0"], env);
  await until(
    async () => sessionProcesses(shellPid),
    (members) => members.length === 0,
    5000,
  );
}, 40_000);
