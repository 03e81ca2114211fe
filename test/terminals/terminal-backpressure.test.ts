import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { StreamedText } from "../helpers/cli-process.ts";
import { until } from "../helpers/poll.ts";
import { MAX_PENDING_INPUT_BYTES } from "../../src/terminals/live-terminal.ts";
import { socketUrl, startTerminalServer, type TerminalServer } from "./terminal-fixtures.ts";

/**
 * Enough output to fill the kernel's socket buffers (about 4 MB on Linux's loopback, which a stopped
 * reader's connection holds before the server sees anything waiting) and then some to skip.
 */
const FLOOD_BYTES = 8_000_000;

let s: TerminalServer;
const readers: Bun.Subprocess<"ignore", "pipe", "pipe">[] = [];

/** A client in a process of its own (fixtures/socket-reader.ts), attached once it says so; its output as it comes. */
async function startReader(terminalId: string): Promise<{ pid: number; output: StreamedText }> {
  const reader = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "socket-reader.ts"), socketUrl(s.t.url, terminalId)], {
    env: { ...process.env, ATRIUM_TOKEN: s.t.token },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  readers.push(reader);
  const output = new StreamedText(reader.stdout);
  await new StreamedText(reader.stderr).waitFor("open");
  return { pid: reader.pid, output };
}

beforeAll(async () => {
  // A small bound, so the kernel's socket buffers (several MB on loopback) are most of what fills first.
  s = await startTerminalServer({ tuning: { modules: { terminals: { limits: { clientBufferBytes: 64 * 1024 } } } } });
});
afterAll(async () => {
  for (const reader of readers) reader.kill("SIGKILL");
  await Promise.all(readers.map((reader) => reader.exited));
  await s.stop();
});

test("a client that stops reading gets a skipped marker instead of an unbounded buffer; the others keep up", async () => {
  const terminal = await s.create();
  const typist = await s.attach(terminal.id);
  // The client that keeps up reads in a process of its own, as a real one does: one in the test's
  // process shares its event loop with the server pushing the flood, and under load fell behind too.
  const steady = await startReader(terminal.id);
  const slow = await startReader(terminal.id);
  process.kill(slow.pid, "SIGSTOP");
  // With output processing off (no \n made \r\n) a PTY passes the flood several times faster.
  typist.type(`stty -opost; yes | head -c ${FLOOD_BYTES}; stty opost; echo flood-$((40+2))\n`);
  await steady.output.waitFor("flood-42\r\n", 60_000);
  expect(steady.output.text).not.toContain("[atrium: skipped ");
  process.kill(slow.pid, "SIGCONT");
  await slow.output.waitFor("[atrium: skipped ", 30_000);
  typist.type("echo after-$((1+1))\n");
  await slow.output.waitFor("after-2\r\n", 30_000);
  const skipped = /\r\n\[atrium: skipped (\d+) bytes\]\r\n/.exec(slow.output.text);
  expect(Number(skipped?.[1])).toBeGreaterThan(1_000_000);
  // What it got plus what it was told it missed is the whole output, never more.
  expect(new TextEncoder().encode(slow.output.text).byteLength).toBeLessThan(FLOOD_BYTES);
}, 90_000);

test("input the program does not read is dropped past 1 MiB, and the client told once; the program gets no more than that", async () => {
  // Raw, so that the line discipline stops taking input once its 4 KiB are full (in canonical mode it
  // discards what does not fit); then, told to, it counts what reached it: `cat` ends after 0.2 s of quiet.
  const terminal = await s.create({
    command: "stty raw -echo; echo ready; while [ ! -e go ]; do sleep 0.01; done; stty min 0 time 2; echo counted=$(cat | wc -c).",
  });
  const client = await s.attach(terminal.id);
  await client.waitFor(/ready/);
  const frame = "x".repeat(64 * 1024);
  for (let sent = 0; sent < 4 * MAX_PENDING_INPUT_BYTES; sent += frame.length) client.type(frame);
  await until(
    async () => client.controls,
    (controls) => controls.some((control) => control.type === "error"),
  );
  writeFileSync(join(terminal.cwd, "go"), "");
  const counted = Number((await client.waitFor(/counted=(\d+)\./))[1]);
  expect(counted).toBeGreaterThan(0);
  // At most the bound and the frame that crossed it.
  expect(counted).toBeLessThanOrEqual(MAX_PENDING_INPUT_BYTES + frame.length);
  expect(client.controls.filter((control) => control.type === "error")).toEqual([{ type: "error", error: expect.stringContaining("input dropped") }]);
});

test("a flood of output does not stall the server: its loop keeps turning while the PTY is read", async () => {
  // The server runs in this process: a timer that fires late means its requests and event streams
  // waited as long. Bun reads a PTY until it is empty, which a flood never is; read on the server's
  // own thread, this flood held the loop for 150 ms and more at a time.
  const gaps: number[] = [];
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 5);
  try {
    const terminal = await s.create({ command: `stty -opost; yes | head -c ${8 * FLOOD_BYTES}` });
    await until(
      async () => (await s.t.json<{ state: string }>("GET", `/v1/terminals/${terminal.id}`)).body.state,
      (state) => state === "exited",
      60_000,
    );
  } finally {
    clearInterval(ticker);
  }
  expect(gaps.length).toBeGreaterThan(20);
  // Read in the server's thread it was 150–190 ms here, read in a worker 10–20 ms.
  expect(Math.max(...gaps)).toBeLessThan(100);
}, 90_000);
