import { expect } from "bun:test";
import type { Project } from "../../src/schemas/projects.ts";
import type { TestServer } from "../helpers/test-server.ts";

/** A project at `folderPath` and the base of its files routes. */
export async function filesProject(t: TestServer, folderPath: string): Promise<{ projectId: string; locationId: string; base: string }> {
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath });
  expect(created.status).toBe(201);
  return { projectId: created.body.id, locationId: created.body.locations[0]!.id, base: `/v1/projects/${created.body.id}/files` };
}

/** `?path=…` and any other query parameters, encoded. */
export const query = (parameters: Record<string, string | number | boolean>) =>
  `?${new URLSearchParams(Object.entries(parameters).map(([key, value]): [string, string] => [key, String(value)])).toString()}`;
