import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { QueuedPrompt, UploadedFile } from "../../src/schemas/sessions.ts";
import { lastReply, startSessionServer, type SessionTestServer } from "./session-helpers.ts";

type FileBody = Static<typeof UploadedFile>;

let t: SessionTestServer;

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

async function upload(name: string, mimeType: string, bytes: Buffer): Promise<FileBody> {
  const response = await t.json<FileBody>("POST", "/v1/files", { name, mimeType, contentBase64: bytes.toString("base64") });
  expect(response.status).toBe(201);
  assertMatchesSchema(UploadedFile, response.body);
  return response.body;
}

// One server for these: each test writes its script, makes its own session and asserts only on what it uploaded.
describe("files and attachments", () => {
  beforeAll(async () => {
    t = await startSessionServer({ agents: "in-process" });
  });
  afterAll(async () => {
    await t.cleanup();
  });

  test("an image reaches an agent that takes images as an image; a text file as a link it can read", async () => {
    t.script({ promptCapabilities: { image: true }, prompts: { "*": [{ describePrompt: true }] } });
    const session = await t.newSession();
    const image = await upload("dot.png", "image/png", PNG);
    expect(image).toMatchObject({ name: "dot.png", mimeType: "image/png", sizeBytes: PNG.length, kind: "image" });
    const notes = await upload("notes.md", "text/markdown", Buffer.from("# Notes\nhello"));
    expect(notes.kind).toBe("file");
    // Stored privately in the data dir, under the file's own name (an agent names a linked file by its path).
    const folder = join(t.dataDir, "files", image.fileId);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder, "dot.png")).mode & 0o777).toBe(0o600);

    const sent = await t.json<Static<typeof QueuedPrompt>>("POST", `/v1/sessions/${session.id}/prompts`, {
      text: "look",
      attachments: [{ fileId: image.fileId }, { fileId: notes.fileId }],
    });
    expect(sent.status).toBe(201);
    assertMatchesSchema(QueuedPrompt, sent.body);
    expect(sent.body.attachments.map((attachment) => attachment.name)).toEqual(["dot.png", "notes.md"]);
    const done = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(lastReply(done)!.text).toBe(`text:look|image:image/png:${PNG.length}|link:notes.md:text/markdown:13:# Notes\nhello`);
    const user = done.conversation.find((item) => item.role === "user")!;
    expect(user.attachments).toEqual(sent.body.attachments);
  });

  test("an agent without image support gets a link; embedded context gets small text inline", async () => {
    t.script({ promptCapabilities: { embeddedContext: true }, prompts: { "*": [{ describePrompt: true }] } });
    const session = await t.newSession();
    const image = await upload("dot.png", "image/png", PNG);
    const notes = await upload("notes.txt", "text/plain", Buffer.from("inline me"));
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "see", attachments: [{ fileId: notes.fileId }] });
    const first = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(lastReply(first)!.text).toBe("text:see|resource:inline me");
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "again", attachments: [{ fileId: image.fileId }] });
    const second = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn" && lastReply(d)!.text.startsWith("text:again"));
    // The image is binary: read as text it is mangled, but the link and its size are what matter.
    expect(lastReply(second)!.text).toStartWith(`text:again|link:dot.png:image/png:${PNG.length}:`);
  });

  test("bad uploads and unknown attachments are refused and change nothing", async () => {
    const session = await t.newSession();
    const before = readdirSync(join(t.dataDir, "files"));
    for (const body of [
      { name: "x", mimeType: "image/png" },
      { name: "", mimeType: "image/png", contentBase64: "AAAA" },
      { name: "x", mimeType: "png", contentBase64: "AAAA" },
      { name: "x", mimeType: "image/png", contentBase64: "not base64!" },
    ]) {
      const refused = await t.json<{ error: string }>("POST", "/v1/files", body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBeString();
    }
    const tooBig = await t.json<{ error: string }>("POST", "/v1/files", {
      name: "big.bin",
      mimeType: "application/octet-stream",
      contentBase64: Buffer.alloc(20 * 1024 * 1024 + 1).toString("base64"),
    });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error).toContain("20 MiB");
    expect(readdirSync(join(t.dataDir, "files"))).toEqual(before);

    const unknown = await t.json<{ error: string }>("POST", `/v1/sessions/${session.id}/prompts`, { text: "x", attachments: [{ fileId: "file_nope" }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain("attachments[0].fileId");
    expect((await t.detail(session.id)).promptQueue).toEqual([]);
  });
});
