import { expect } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { assertMatchesSchema } from "./schema-assert.ts";
import type { TestServer } from "./test-server.ts";

/** Follows the Link headers from `path` to the last page; returns each page's items, each page checked against `schema`. */
export async function pagesOf<T>(server: Pick<TestServer, "api">, path: string, schema: TSchema): Promise<T[][]> {
  const pages: T[][] = [];
  let next: string | null = path;
  while (next) {
    const response = await server.api(next);
    expect(response.status, next).toBe(200);
    const page = (await response.json()) as T[];
    assertMatchesSchema(schema, page);
    pages.push(page);
    const link = response.headers.get("link");
    next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1]! : null;
    expect(pages.length, "a Link that never ends").toBeLessThan(20);
  }
  return pages;
}
