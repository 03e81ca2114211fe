/**
 * The baseline for the throughput ratio: Bun.serve with no framework, no auth and no database,
 * answering every request with a small JSON object. It prints the same "listening on" line as Atrium.
 */
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => Response.json({ status: "ok" }),
});
console.log(`listening on http://127.0.0.1:${server.port}`);
