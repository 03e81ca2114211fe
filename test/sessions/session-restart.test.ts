import { afterEach, expect, test } from "bun:test";
import { until } from "../helpers/poll.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { builtCommand, startServe, type ServeProcess } from "../helpers/cli-process.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { scriptedAgents } from "../fixtures/scripted-agent/in-process.ts";
import { SCRIPTED_AGENT, scriptedAgentEnv, type DetailBody } from "./session-helpers.ts";

let home: ReturnType<typeof makeTempDir>;
let serve: ServeProcess | undefined;
let restarted: TestServer | undefined;

afterEach(async () => {
  serve?.child.kill("SIGKILL");
  await serve?.child.exited;
  await restarted?.stop();
  restarted = undefined;
  home.remove();
});

test("kill -9 of the server mid-stream: after a restart the conversation and queue are intact, the turn is marked interrupted, and the queue goes on", async () => {
  home = makeTempDir("atrium-restart-");
  // The reply streams its first part, then waits for a gate nothing opens: still streaming at the kill.
  const streamed = Array.from({ length: 100 }, (_, index) => `chunk ${index} `);
  const scriptFile = join(home.path, "script.json");
  writeFileSync(scriptFile, JSON.stringify({ prompts: { stream: [...streamed.map((chunk) => ({ chunk })), { gate: "never" }] } }));
  const config = { harnesses: [{ id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT }], harnessUpdateCheck: false };
  writeFileSync(join(home.path, "config.json"), JSON.stringify(config));
  const env = scriptedAgentEnv(home.path, scriptFile);
  serve = await startServe(builtCommand, home.path, ["--port", "0"], env);
  const token = readFileSync(join(home.path, "token"), "utf8").trim();
  const call = async <T>(url: string, method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await response.json()) as T;
  };
  const project = await call<{ id: string }>(serve.url, "POST", "/v1/projects", { isScratch: true });
  const session = await call<{ id: string }>(serve.url, "POST", "/v1/sessions", { projectId: project.id, harnessId: "scripted" });
  await call(serve.url, "POST", `/v1/sessions/${session.id}/prompts`, { text: "stream" });
  const firstUrl = serve.url;
  await until(
    () => call<DetailBody>(firstUrl, "GET", `/v1/sessions/${session.id}`),
    (detail) => detail.conversation[1]?.text === streamed.join(""),
  );
  // Queued behind the streaming reply, and acknowledged: writing it stored the reply's text so far first.
  await call(serve.url, "POST", `/v1/sessions/${session.id}/prompts`, { text: "after the restart" });
  serve.child.kill("SIGKILL");
  await serve.child.exited;
  serve = undefined;

  // The next start on the data dir the killed server left (its database, lock and agent records), in
  // this process: what it finds is the test, not how it is started. Its agent runs here too.
  const agents = scriptedAgents(join(home.path, "agent-state"));
  restarted = await startTestServer({
    dataDir: home.path,
    config,
    tuning: { modules: { harnesses: { env }, sessions: { openAgentChannel: agents.open } } },
  });
  const url = restarted.url;
  const after = await until(
    () => call<DetailBody>(url, "GET", `/v1/sessions/${session.id}`),
    (detail) => detail.conversation.length === 4 && detail.conversation[3]!.stopReason === "end_turn",
    20_000,
  );
  const [prompt, interrupted, next, reply] = after.conversation;
  expect(prompt).toMatchObject({ role: "user", text: "stream" });
  // Everything stored before the kill is still there.
  expect(interrupted).toMatchObject({ role: "assistant", isGenerating: false, stopReason: "interrupted", text: streamed.join("") });
  expect(next).toMatchObject({ role: "user", text: "after the restart" });
  expect(reply).toMatchObject({ role: "assistant", text: "echo after the restart" });
  expect(after.promptQueue).toEqual([]);
}, 60_000);
