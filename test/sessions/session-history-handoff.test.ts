import { describe, expect, test } from "bun:test";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { SessionEvents } from "../../src/schemas/sessions.ts";
import { type Static, Type } from "@sinclair/typebox";
import { lastReply } from "./session-helpers.ts";
import { cleanUpAfterEach, quirkServer, type QuirkServer } from "./quirk-server.ts";

// When the agent cannot restore its session, Atrium hands it the conversation it kept with the next
// prompt; the scripted agent describes each prompt it receives (`describePrompt`), block by block.

cleanUpAfterEach();

const HandoffEvent = Type.Object({ kind: Type.Literal("session.history.handoff"), payload: SessionEvents["session.history.handoff"] });

/** A session whose agent answered "one" and "two", on a server restarted since (with `script` for the agents to come). */
async function twoTurnsThenRestart(script: Record<string, unknown>): Promise<{ s: QuirkServer; id: string }> {
  const s = await quirkServer({ loadSession: true, prompts: { "*": [{ describePrompt: true }] } }, { agents: "in-process" });
  const session = await s.newSession();
  expect(lastReply(await s.turn(session.id, "one"))!.text).toBe("text:one");
  expect(lastReply(await s.turn(session.id, "two"))!.text).toBe("text:two");
  await s.restart();
  // Agents read their script as they start: the next one runs this one.
  s.script({ prompts: { "*": [{ describePrompt: true }] }, ...script });
  return { s, id: session.id };
}

/** The events of the session that say history was handed over. */
async function handoffEvents(s: QuirkServer, id: string) {
  const events = (await s.t.json<Array<Static<typeof HandoffEvent>>>("GET", `/v1/sessions/${id}/events?limit=1000`)).body;
  const handoffs = events.filter((event) => event.kind === "session.history.handoff");
  for (const event of handoffs) assertMatchesSchema(HandoffEvent, event);
  return handoffs;
}

describe("history handoff: an agent that cannot restore its session gets the conversation Atrium kept", () => {
  test("a refused session/load: the next request holds the earlier prompts and replies before the new prompt, and the session says so", async () => {
    const { s, id } = await twoTurnsThenRestart({ loadSession: true, refuseLoad: true });
    const after = await s.turn(id, "three");
    const received = lastReply(after)!.text;
    const [history, prompt] = received.split("|");
    expect(prompt).toBe("text:three");
    expect(history).toStartWith("text:<conversation-so-far>");
    expect(history).toContain("## Turn 1\nUser:\none\nAssistant:\ntext:one\n");
    expect(history).toContain("## Turn 2\nUser:\ntwo\nAssistant:\ntext:two\n");
    expect(history).not.toContain("three");
    expect(after.session.status).toBe(
      "the agent could not load its earlier session (Internal error: No previous sessions found for this project.); it started a new one, " +
        "and the conversation Atrium kept (2 turns) was handed to the agent with this prompt",
    );
    const [event, ...more] = await handoffEvents(s, id);
    expect(more).toEqual([]);
    expect(event!.payload).toMatchObject({ turns: 2, summarised: 0, omitted: 0, notice: after.session.status! });
    // The new agent session has it now: the next prompt goes alone.
    const next = await s.turn(id, "four");
    expect(lastReply(next)!.text).toBe("text:four");
    expect(next.session.status).toBeNull();
    expect(await handoffEvents(s, id)).toHaveLength(1);
  });

  test("a harness that cannot load at all: after a restart the conversation is handed over, not lost silently", async () => {
    const { s, id } = await twoTurnsThenRestart({ loadSession: false });
    const after = await s.turn(id, "three");
    expect(lastReply(after)!.text).toContain("## Turn 2\nUser:\ntwo\nAssistant:\ntext:two\n");
    expect(lastReply(after)!.text).toEndWith("|text:three");
    expect(after.session.status).toStartWith(
      "the agent cannot load an earlier session (it does not offer session/load); it started a new one, and the conversation",
    );
  });

  test("a session that loads: nothing is handed over", async () => {
    const { s, id } = await twoTurnsThenRestart({ loadSession: true });
    const after = await s.turn(id, "three");
    expect(lastReply(after)!.text).toBe("text:three");
    expect(await handoffEvents(s, id)).toEqual([]);
  });
});
