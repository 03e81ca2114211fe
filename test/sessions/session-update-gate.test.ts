import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../helpers/manual-clock.ts";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { scriptedAgents } from "../fixtures/scripted-agent/in-process.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { SessionDetail } from "../../src/schemas/sessions.ts";
import { lastReply, type DetailBody } from "./session-helpers.ts";

const fixtures = join(import.meta.dir, "..", "fixtures");

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
afterEach(async () => {
  await t.stop();
  dir.remove();
});

describe("a harness being updated", () => {
  test("shows updateGate and holds new turns until the update is done; then the queue goes on", async () => {
    dir = makeTempDir("atrium-gate-");
    const bin = join(dir.path, "bin");
    const script = join(dir.path, "script.json");
    writeFileSync(script, JSON.stringify({ prompts: {} }));
    const env = {
      PATH: [bin, join(fixtures, "fake-npm"), dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
      HOME: dir.path,
      FAKE_NPM_BIN: bin,
      SCRIPTED_AGENT_SCRIPT: script,
      SCRIPTED_AGENT_STATE: join(dir.path, "agent-state"),
    };
    // The fake npm's Gemini CLI answers --version; `gemini --acp` is the scripted ACP agent, in the test's process.
    const agents = scriptedAgents(env.SCRIPTED_AGENT_STATE, () => true);
    // The update runs until the test lets it end.
    const updateGate = join(dir.path, "update-may-end");
    mkdirSync(bin, { recursive: true });
    expect(spawnSync(join(fixtures, "fake-npm", "npm"), ["install", "-g", "@google/gemini-cli"], { env }).status).toBe(0);
    // The held queue looks again on the server's clock, which this test moves on.
    const clock = new ManualClock();
    t = await startTestServer({
      tuning: {
        clock,
        modules: {
          harnesses: { env: { ...env, FAKE_NPM_GATE: updateGate }, probeTimeoutMs: 5000 },
          sessions: { initializeTimeoutMs: 5000, openAgentChannel: agents.open },
        },
      },
    });
    await until(
      () => t.json<Array<{ id: string; readiness: { state: string } }>>("GET", "/v1/harnesses"),
      (list) => list.body.find((harness) => harness.id === "gemini")?.readiness.state === "ready",
    );
    const project = await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
    const session = (await t.json<{ id: string }>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "gemini" })).body;
    const detail = async () => (await t.json<DetailBody>("GET", `/v1/sessions/${session.id}`)).body;

    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "before" });
    await until(detail, (d) => lastReply(d)?.text === "echo before" && !lastReply(d)?.isGenerating);

    expect((await t.json("POST", "/v1/harnesses/gemini/update", {})).status).toBe(202);
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "during" });
    const held = await detail();
    assertMatchesSchema(SessionDetail, held);
    expect(held.updateGate).toEqual({ harnessId: "gemini", harnessName: "Gemini CLI" });
    // The update ends; until the queue's next look the prompt stays queued.
    writeFileSync(updateGate, "");
    await until(
      () => t.json<{ lifecycle: { phase: string } }>("GET", "/v1/harnesses/gemini"),
      (harness) => harness.body.lifecycle.phase !== "updating",
      15_000,
    );
    const stillHeld = await detail();
    expect(stillHeld.promptQueue.map((prompt) => prompt.text)).toEqual(["during"]);
    expect(lastReply(stillHeld)?.text).toBe("echo before");

    await clock.advance(1_000);
    const after = await until(detail, (d) => lastReply(d)?.text === "echo during" && !lastReply(d)?.isGenerating, 15_000);
    expect(after.updateGate).toBeNull();
    expect(after.promptQueue).toEqual([]);
  });
});
