import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Project } from "../../src/schemas/projects.ts";
import { UploadedFile } from "../../src/schemas/sessions.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

const projectCount = async () => ((await (await t.api("/v1/projects")).json()) as unknown[]).length;

describe("lengths are counted in characters (code points), as JSON Schema counts them", () => {
  test("a project name of 150 emoji is taken, and so is one of 200 (maxLength 200)", async () => {
    for (const name of ["😀".repeat(150), "😀".repeat(200)]) {
      const { status, body } = await t.json<{ name: string }>("POST", "/v1/projects", { isScratch: true, name });
      expect(status).toBe(201);
      assertMatchesSchema(Project, body);
      expect(body.name).toBe(name);
    }
  });

  test("201 characters are refused 400 naming the field, and nothing is made", async () => {
    const before = await projectCount();
    const { status, body } = await t.json<{ error: string }>("POST", "/v1/projects", { isScratch: true, name: "𝐀".repeat(201) });
    expect(status).toBe(400);
    expect(body.error).toBe('body field "name" is invalid: expected a string, at least 1 characters, at most 200 characters');
    expect(await projectCount()).toBe(before);
  });

  test("a plugin id of 35 mathematical letters is within maxLength 64: unknown (404), not refused (400); 65 are refused", async () => {
    const known = await t.api(`/v1/plugins/${encodeURIComponent("𝐚".repeat(35))}`);
    expect(known.status).toBe(404);
    const tooLong = await t.api(`/v1/plugins/${encodeURIComponent("𝐚".repeat(65))}`);
    expect(tooLong.status).toBe(400);
    expect(((await tooLong.json()) as { error: string }).error).toContain('path parameter "pluginId"');
  });

  test("an uploaded file's name is kept whole; on disk it is cut to what a file system takes (255 bytes)", async () => {
    for (const name of [`${"漢".repeat(120)}.txt`, "😀".repeat(255)]) {
      const { status, body } = await t.json<{ name: string }>("POST", "/v1/files", { name, mimeType: "text/plain", contentBase64: "aGk=" });
      expect(status).toBe(201);
      assertMatchesSchema(UploadedFile, body);
      expect(body.name).toBe(name);
    }
  });
});
