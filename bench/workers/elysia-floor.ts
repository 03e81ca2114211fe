import { Elysia } from "elysia";
import { healthDocument } from "./health-document.ts";

/**
 * What the fixed stack costs before Atrium adds anything: Elysia with one hook that compares the
 * Authorization header to a fixed string, answering the same document as the bare baseline. Compiled
 * like Atrium. The distance from here to Atrium is Atrium's own work per request.
 */
const expected = `Bearer ${process.argv[2]}`;
const app = new Elysia()
  .onRequest(({ request }) => {
    if (request.headers.get("authorization") !== expected) throw new Error("unauthorized");
  })
  .onError(() => ({ error: "unauthorized" }))
  .get("/v1/health", () => healthDocument())
  .listen({ hostname: "127.0.0.1", port: 0, reusePort: false });
console.log(`listening on http://127.0.0.1:${app.server?.port}`);
