import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { QueuedPrompt } from "../../src/schemas/sessions.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { lastReply, startSessionServer, type SessionTestServer } from "./session-helpers.ts";

let t: SessionTestServer;
const outside = makeTempDir("atrium-mention-outside-");

// A prompt names files of the session's folder (the console's @-mentions): each reaches the agent as a link
// it reads, or as its text where the agent takes embedded context; a path leading out is refused.
describe("prompt mentions", () => {
  beforeAll(async () => {
    t = await startSessionServer({ agents: "in-process" });
    writeFileSync(join(outside.path, "secret.txt"), "not yours");
  });
  afterAll(async () => {
    await t.cleanup();
    outside.remove();
  });

  test("a mentioned file reaches the agent as a link it can read, or as its text with embedded context", async () => {
    t.script({ prompts: { "*": [{ describePrompt: true }] } });
    const session = await t.newSession();
    mkdirSync(join(session.cwd, "src"));
    writeFileSync(join(session.cwd, "src", "app.ts"), "export const answer = 42;\n");
    const sent = await t.json<Static<typeof QueuedPrompt>>("POST", `/v1/sessions/${session.id}/prompts`, {
      text: "explain @src/app.ts",
      mentions: [{ path: "src/app.ts" }],
    });
    expect(sent.status).toBe(201);
    assertMatchesSchema(QueuedPrompt, sent.body);
    expect(sent.body.mentions).toEqual([{ path: "src/app.ts", sizeBytes: 26 }]);
    const done = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(lastReply(done)!.text).toBe("text:explain @src/app.ts|link:app.ts:undefined:26:export const answer = 42;\n");

    t.script({ promptCapabilities: { embeddedContext: true }, prompts: { "*": [{ describePrompt: true }] } });
    const embedded = await t.newSession();
    writeFileSync(join(embedded.cwd, "notes.md"), "inline me");
    await t.json("POST", `/v1/sessions/${embedded.id}/prompts`, { text: "see", mentions: [{ path: "notes.md" }] });
    const inline = await t.until(embedded.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(lastReply(inline)!.text).toBe("text:see|resource:inline me");
  });

  test("a path outside the session's folder, or missing, is refused and nothing is queued", async () => {
    const session = await t.newSession();
    symlinkSync(join(outside.path, "secret.txt"), join(session.cwd, "link.txt"));
    const refusals: Array<[string, number]> = [
      ["../secret.txt", 400],
      [join(outside.path, "secret.txt"), 400],
      ["link.txt", 403],
      ["missing.txt", 404],
    ];
    for (const [path, status] of refusals) {
      const refused = await t.json<{ error: string }>("POST", `/v1/sessions/${session.id}/prompts`, { text: "x", mentions: [{ path }] });
      expect([path, refused.status]).toEqual([path, status]);
      expect(refused.body.error).toContain(path);
    }
    expect((await t.detail(session.id)).promptQueue).toEqual([]);
  });
});
