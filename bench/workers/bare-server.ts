import { healthDocument } from "./health-document.ts";

/**
 * The baselines for the throughput ratio: Bun.serve with no framework, no auth and no database. With
 * `health` it answers with a document like Atrium's health report, so the ratio measures the server's
 * own cost rather than the size of the answer; with `small` it answers `{"status":"ok"}`. It prints
 * the same "listening on" line as Atrium.
 */
const small = process.argv[2] !== "health";
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: small ? () => Response.json({ status: "ok" }) : () => Response.json(healthDocument()),
});
console.log(`listening on http://127.0.0.1:${server.port}`);
