import { afterEach, expect, test } from "bun:test";
import { until } from "../helpers/poll.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { sourceCommand, startServe, type ServeProcess } from "../helpers/cli-process.ts";
import type { DetailBody } from "./session-helpers.ts";

let home: ReturnType<typeof makeTempDir>;
let serve: ServeProcess | undefined;

afterEach(async () => {
  serve?.child.kill("SIGKILL");
  await serve?.child.exited;
  home.remove();
});

test("kill -9 of the server mid-stream: after a restart the conversation and queue are intact, the turn is marked interrupted, and the queue goes on", async () => {
  home = makeTempDir("atrium-restart-");
  serve = await startServe(sourceCommand, home.path);
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
  const session = await call<{ id: string }>(serve.url, "POST", "/v1/sessions", { projectId: project.id, harnessId: "echo" });
  await call(serve.url, "POST", `/v1/sessions/${session.id}/prompts`, { text: "/long 1000000" });
  await call(serve.url, "POST", `/v1/sessions/${session.id}/prompts`, { text: "after the restart" });
  // Wait until some of the reply is stored, then kill the server without warning.
  let before: DetailBody;
  for (;;) {
    before = await call<DetailBody>(serve.url, "GET", `/v1/sessions/${session.id}`);
    if ((before.conversation[1]?.text.length ?? 0) > 1000) break;
    await Bun.sleep(20);
  }
  serve.child.kill("SIGKILL");
  await serve.child.exited;

  serve = await startServe(sourceCommand, home.path);
  const url = serve.url;
  const after = await until(
    () => call<DetailBody>(url, "GET", `/v1/sessions/${session.id}`),
    (detail) => detail.conversation.length === 4 && detail.conversation[3]!.stopReason === "end_turn",
    20_000,
  );
  const [prompt, interrupted, next, reply] = after.conversation;
  expect(prompt).toMatchObject({ role: "user", text: "/long 1000000" });
  expect(interrupted).toMatchObject({ role: "assistant", isGenerating: false, stopReason: "interrupted" });
  // Everything stored before the kill is still there, and it is the start of the reply.
  expect(interrupted!.text.startsWith(before.conversation[1]!.text.slice(0, 1000))).toBe(true);
  expect(interrupted!.text).toStartWith("chunk 0 chunk 1 ");
  expect(next).toMatchObject({ role: "user", text: "after the restart" });
  expect(reply).toMatchObject({ role: "assistant", text: "Echo: after the restart" });
  expect(after.promptQueue).toEqual([]);
}, 60_000);
