import { defineCommand } from "citty";
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { detectServiceMode } from "../system/service-mode.ts";
import { cliPaths, runCli } from "./cli-context.ts";

const POLL_MS = 250;

/** Copies bytes [from, to) of a file to stdout. */
function copyRange(file: string, from: number, to: number): void {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(64 * 1024);
    for (let position = from; position < to; ) {
      const read = readSync(fd, buffer, 0, Math.min(buffer.length, to - position), position);
      if (read === 0) break;
      process.stdout.write(buffer.subarray(0, read));
      position += read;
    }
  } finally {
    closeSync(fd);
  }
}

/** Byte offset where the last `lines` lines of the file start. */
function tailOffset(file: string, lines: number): number {
  const size = statSync(file).size;
  const fd = openSync(file, "r");
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let seen = 0;
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - chunk.length);
      readSync(fd, chunk, 0, end - start, start);
      for (let index = end - start - 1; index >= 0; index--) {
        if (chunk[index] === 10 && start + index !== size - 1 && ++seen === lines) return start + index + 1;
      }
      end = start;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/** Runs a command on our own stdout and stderr; 127 when it cannot be started. */
async function runInherited(command: string[]): Promise<number> {
  try {
    return await Bun.spawn(command, { stdio: ["ignore", "inherit", "inherit"] }).exited;
  } catch {
    return 127;
  }
}

export const logsCommand = defineCommand({
  meta: { name: "logs", description: "Print the server log; --follow keeps printing new lines" },
  args: {
    follow: { type: "boolean", alias: "f", description: "Keep printing lines as they are written" },
    lines: { type: "string", alias: "n", description: "How many of the last lines to print first (default 200)" },
  },
  run: ({ args }) =>
    runCli(async () => {
      const paths = cliPaths();
      const lines = args.lines === undefined ? 200 : Number(args.lines);
      const service = await detectServiceMode(paths);
      // A systemd unit's output is in the journal, with what systemd itself said about starts and stops.
      if (service.kind === "systemd-user" || service.kind === "systemd-system") {
        const scope = service.kind === "systemd-user" ? ["--user"] : [];
        const command = ["journalctl", ...scope, "-u", service.unit, "-n", String(lines), "--no-pager", ...(args.follow ? ["-f"] : [])];
        if ((await runInherited(command)) === 0) return;
        process.stderr.write("journalctl did not answer; showing Atrium's own log file instead\n");
      }
      const file = paths.logFile;
      let position = existsSync(file) ? tailOffset(file, lines) : 0;
      if (existsSync(file)) {
        const size = statSync(file).size;
        copyRange(file, position, size);
        position = size;
      } else if (!args.follow) {
        process.stderr.write(`no log yet at ${file}\n`);
      }
      while (args.follow) {
        await Bun.sleep(POLL_MS);
        if (!existsSync(file)) continue;
        const size = statSync(file).size;
        if (size < position) position = 0; // rotated: the new file starts from the top
        if (size > position) copyRange(file, position, size);
        position = size;
      }
    }),
});
