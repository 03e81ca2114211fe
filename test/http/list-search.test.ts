import { afterAll, beforeAll, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { SessionListItem } from "../../src/schemas/sessions.ts";
import { pagesOf } from "../helpers/pages.ts";
import { ProjectList } from "../../src/schemas/projects.ts";

let t: TestServer;
let harbour: string;
let meadow: string;
const titles = ["Fix the Login page", "login tokens expire", "Write the README", "Café menu", "Deploy"];

beforeAll(async () => {
  t = await startTestServer();
  await t.ready();
  harbour = (await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true, name: "Blue Harbour" })).body.id;
  meadow = (await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true, name: "Meadow" })).body.id;
  for (const [index, title] of titles.entries()) {
    await t.json("POST", "/v1/sessions", { projectId: index < 2 ? meadow : harbour, harnessId: "echo", title });
  }
});

afterAll(() => t.stop());

/** The titles of every page of `path`, following the Link headers; each page checked against the list's schema. */
const titlesOf = async (path: string): Promise<string[]> =>
  (await pagesOf<{ title: string }>(t, path, Type.Array(SessionListItem)))
    .flat()
    .map((session) => session.title)
    .sort();

test("`q` finds sessions whose title holds the text, ASCII letters of any case, paged like the list", async () => {
  expect(await titlesOf("/v1/sessions?q=LOGIN")).toEqual(["Fix the Login page", "login tokens expire"]);
  // The next page keeps the search.
  expect(await titlesOf("/v1/sessions?q=login&limit=1")).toEqual(["Fix the Login page", "login tokens expire"]);
  expect(await titlesOf(`/v1/sessions?q=${encodeURIComponent("café")}`)).toEqual(["Café menu"]);
  // Characters that mean something to SQL's LIKE are only text here.
  expect(await titlesOf("/v1/sessions?q=%25")).toEqual([]);
  expect(await titlesOf("/v1/sessions?q=_")).toEqual([]);
});

test("`q` finds the sessions of a project by its name, and follows a rename", async () => {
  expect(await titlesOf("/v1/sessions?q=harbour")).toEqual(["Café menu", "Deploy", "Write the README"]);
  // With another filter, both hold.
  expect(await titlesOf(`/v1/sessions?q=e&projectId=${meadow}`)).toEqual(["Fix the Login page", "login tokens expire"]);
  await t.json("PATCH", `/v1/projects/${harbour}`, { name: "Green Quay" });
  expect(await titlesOf("/v1/sessions?q=harbour")).toEqual([]);
  expect(await titlesOf("/v1/sessions?q=quay")).toEqual(["Café menu", "Deploy", "Write the README"]);
  await t.json("PATCH", `/v1/projects/${harbour}`, { name: "Blue Harbour" });
});

test("`q` finds projects by name, paged like the list", async () => {
  const { status, body } = await t.json<Array<{ id: string }>>("GET", "/v1/projects?q=MEAD");
  expect(status).toBe(200);
  assertMatchesSchema(ProjectList, body);
  expect(body.map((project) => project.id)).toEqual([meadow]);
  const first = await t.api("/v1/projects?q=a&limit=1");
  expect(((await first.json()) as Array<{ id: string }>).map((project) => project.id)).toEqual([harbour]);
  const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get("link")!)![1]!;
  expect(next).toContain("q=a");
  expect(((await (await t.api(next)).json()) as Array<{ id: string }>).map((project) => project.id)).toEqual([meadow]);
});

test("an empty or overlong search is 400, naming q", async () => {
  for (const path of ["/v1/sessions?q=", `/v1/sessions?q=${"x".repeat(201)}`, "/v1/projects?q="]) {
    const { status, body } = await t.json<{ error: string }>("GET", path);
    expect(status, path).toBe(400);
    assertMatchesSchema(ErrorBody, body);
    expect(body.error).toContain("q");
  }
});
