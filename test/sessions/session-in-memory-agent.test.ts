import { afterEach, expect, test } from "bun:test";
import { agent, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { inMemoryAgents } from "../helpers/in-memory-agent.ts";
import { SessionDetail } from "../../src/schemas/sessions.ts";
import { idle, lastReply, startSessionServer, type SessionTestServer } from "./session-helpers.ts";

// The session runtime with an agent that runs in the test's own process (the ACP SDK over in-memory
// streams): for what Atrium does with what an agent says, where a child process adds nothing.

let t: SessionTestServer | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

/** Answers each prompt with its words one chunk at a time, asking permission first for `ask`. */
const wordAgent = () =>
  agent({ name: "in-memory" })
    .onRequest("initialize", () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest("session/new", () => ({ sessionId: `memory-${crypto.randomUUID()}` }))
    .onRequest("session/prompt", async ({ params, client }) => {
      const text = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
      if (text === "ask") {
        const answer = await client.request("session/request_permission", {
          sessionId: params.sessionId,
          toolCall: { toolCallId: "t1", title: "Write notes.md" },
          options: [
            { optionId: "yes", name: "Allow", kind: "allow_once" },
            { optionId: "no", name: "Deny", kind: "reject_once" },
          ],
        });
        const chosen = answer.outcome.outcome === "selected" ? answer.outcome.optionId : "cancelled";
        await client.notify("session/update", {
          sessionId: params.sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chose ${chosen}` } },
        });
        return { stopReason: "end_turn" };
      }
      for (const word of text.split(" ")) {
        await client.notify("session/update", {
          sessionId: params.sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${word}.` } },
        });
      }
      return { stopReason: "end_turn" };
    });

test("a turn with an in-process agent: its chunks make the reply, one agent serves the session's turns, and a delete stops it", async () => {
  const agents = inMemoryAgents(wordAgent);
  t = await startSessionServer({ tuning: { modules: { sessions: { openAgentChannel: agents.open } } } });
  const session = await t.newSession();
  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "one two three" });
  const first = await t.until(session.id, (detail) => idle(detail) && detail.conversation.length === 2);
  assertMatchesSchema(SessionDetail, first);
  expect(lastReply(first)).toMatchObject({ text: "one.two.three.", stopReason: "end_turn", isGenerating: false });

  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "ask" });
  const asking = await t.until(session.id, (detail) => detail.pendingQuestion !== null);
  const question = asking.pendingQuestion!;
  const answer = await t.json("POST", `/v1/sessions/${session.id}/questions/${question.questionId}/answer`, {
    answers: { permission: { optionIds: ["yes"] } },
  });
  expect(answer.status).toBe(200);
  const second = await t.until(session.id, (detail) => idle(detail) && detail.conversation.length === 4);
  expect(lastReply(second)?.text).toBe("chose yes");
  expect(agents.started).toBe(1);
  expect(agents.running).toBe(1);

  expect((await t.json("DELETE", `/v1/sessions/${session.id}`)).status).toBe(200);
  expect(agents.running).toBe(0);
});
