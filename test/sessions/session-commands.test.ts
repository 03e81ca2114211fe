import { afterEach, expect, test } from "bun:test";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { until } from "../helpers/poll.ts";
import { echoAgentInProcess } from "../skills/echo-agent-in-process.ts";
import type { TestServer } from "../helpers/test-server.ts";
import { SessionDetail, SessionEvents } from "../../src/schemas/sessions.ts";
import { lastReply, startSessionServer, type DetailBody, type SessionTestServer } from "./session-helpers.ts";

let t: SessionTestServer;
let restarted: TestServer | undefined;
afterEach(async () => {
  await restarted?.stop();
  restarted = undefined;
  await t.cleanup();
});

type Event = { kind: string; payload: unknown };
const commandEvents = async (server: TestServer, sessionId: string) =>
  (await server.json<Event[]>("GET", `/v1/sessions/${sessionId}/events?limit=1000`)).body.filter((event) => event.kind === "session.commands");

test("the agent's slash commands reach the detail and an event, survive a restart, and '/name args' reaches the agent as that text", async () => {
  t = await startSessionServer({ agents: "in-process" });
  const listed = [
    { name: "review", description: "Review a file", input: { hint: "path to review" } },
    { name: "init", description: "Write an AGENTS.md" },
    // Takes input without a hint, as Qwen says it.
    { name: "compress", description: "Compress the context", input: { hint: "" } },
  ];
  t.script({
    // Listed once session/new is answered, outside any turn, as claude-agent-acp does.
    availableCommands: listed,
    prompts: {
      "/review src/app.ts --strict": [{ describePrompt: true }],
      // The same list again is no change; then a skill found mid-session adds a command.
      skills: [{ commands: listed }, { commands: [{ name: "deploy", description: "Ship it", input: { hint: "environment" } }] }, { chunk: "found a skill" }],
    },
  });
  const session = await t.newSession();
  expect((await t.detail(session.id)).availableCommands).toEqual([]);

  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "/review src/app.ts --strict" });
  const answered = await t.until(session.id, (d) => lastReply(d)?.isGenerating === false && d.availableCommands.length > 0);
  assertMatchesSchema(SessionDetail, answered);
  // ACP has no command request: the slash command is the prompt's text, sent as the user typed it.
  expect(lastReply(answered)?.text).toBe("text:/review src/app.ts --strict");
  const first = [
    { name: "review", description: "Review a file", inputHint: "path to review" },
    { name: "init", description: "Write an AGENTS.md", inputHint: null },
    { name: "compress", description: "Compress the context", inputHint: "" },
  ];
  expect(answered.availableCommands).toEqual(first);

  // A changed list mid-session replaces the old one.
  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "skills" });
  const changed = await t.until(session.id, (d: DetailBody) => lastReply(d)?.text === "found a skill" && !lastReply(d)?.isGenerating);
  const second = [{ name: "deploy", description: "Ship it", inputHint: "environment" }];
  expect(changed.availableCommands).toEqual(second);
  const events = await commandEvents(t, session.id);
  for (const event of events) assertMatchesSchema(SessionEvents["session.commands"], event.payload);
  expect(events.map((event) => event.payload)).toEqual([{ availableCommands: first }, { availableCommands: second }]);

  // After a restart the last list is known before any agent starts; the agent's next start lists its
  // commands anew.
  restarted = await t.restart();
  const read = await restarted.json<DetailBody>("GET", `/v1/sessions/${session.id}`);
  expect(read.body.availableCommands).toEqual(second);
  await restarted.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "/review src/app.ts --strict" });
  const server = restarted;
  const again = await until(
    async () => (await server.json<DetailBody>("GET", `/v1/sessions/${session.id}`)).body,
    (d) => d.availableCommands[0]?.name === "review",
  );
  expect(again.availableCommands).toEqual(first);
  expect((await commandEvents(restarted, session.id)).length).toBe(3);
});

test("the built-in echo agent lists its commands, and runs one sent as a prompt", async () => {
  t = await startSessionServer({ tuning: { modules: { sessions: { openAgentChannel: echoAgentInProcess } } } });
  const session = await t.newSession("echo");
  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "/title Release notes" });
  const done = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn" && d.availableCommands.length > 0);
  expect(done.availableCommands.map((command) => command.name)).toEqual(["long", "plan", "ask", "usage", "title", "skills", "help"]);
  expect(done.availableCommands.find((command) => command.name === "title")).toEqual({ name: "title", description: "rename the session", inputHint: "TEXT" });
  expect(done.session.title).toBe("Release notes");
});
