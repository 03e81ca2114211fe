import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../logging/logger.ts";
import { killGroup } from "./run-command.ts";

/** What is written down of a child while it runs, so a later server can tell it apart from a reused pid. */
interface ChildRecord {
  pid: number;
  /** When the process started, as the OS says it (null when it could not be read). */
  startMark: string | null;
  command: string;
}

/**
 * Every long-lived child the server starts (agents and what they run), each in its own process group.
 * Each is written down in `<data>/children/<pid>.json` while it runs, so that the next start can stop
 * the children a killed server left behind. A child stops with its entry; shutdown stops them all,
 * including those still starting.
 */
export class ChildProcesses {
  private readonly running = new Set<number>();

  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {}

  /**
   * Stops the children a previous run of the server left running (after a kill -9 or a crash): each
   * recorded pid whose process started when the record says, so a pid since reused is left alone.
   */
  reapOrphans(): number {
    let entries: string[];
    try {
      entries = readdirSync(this.dir).filter((name) => name.endsWith(".json"));
    } catch {
      return 0;
    }
    let stopped = 0;
    for (const name of entries) {
      const file = join(this.dir, name);
      const record = readRecord(file);
      if (record && record.startMark !== null && startMark(record.pid) === record.startMark) {
        try {
          process.kill(-record.pid, "SIGKILL");
          stopped++;
          this.logger.info("stopped a child process left by the previous run", { pid: record.pid, command: record.command });
        } catch (error) {
          this.logger.warn("could not stop a child process left by the previous run", { pid: record.pid, error: (error as Error).message });
        }
      }
      rmSync(file, { force: true });
    }
    return stopped;
  }

  /** Records a child until it exits; a failed record (full disk) is logged and the child still runs. */
  track(child: Bun.Subprocess, command: string[]): void {
    this.trackPid(child.pid, command, child.exited);
  }

  /** Records a child another thread started (a terminal's, in its PTY worker) until `exited` settles. */
  trackPid(pid: number, command: string[], exited: Promise<unknown>): void {
    this.running.add(pid);
    const file = join(this.dir, `${pid}.json`);
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const record: ChildRecord = { pid, startMark: startMark(pid), command: command.join(" ").slice(0, 500) };
      writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
    } catch (error) {
      this.logger.warn("could not record a child process; a crash of the server would leave it running", { pid, error: (error as Error).message });
    }
    const forget = () => {
      this.running.delete(pid);
      // The group may still hold grandchildren the child started; they end with it. (The group only:
      // the pid itself may already belong to another process.)
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // The group is already gone.
      }
      rmSync(file, { force: true });
    };
    void exited.then(forget, forget);
  }

  /** Pids of the children running now. */
  pids(): number[] {
    return [...this.running];
  }

  /** Stops every child still running (server shutdown), with whatever it started. */
  stopAll(): void {
    for (const pid of this.running) killGroup({ pid });
  }
}

function readRecord(file: string): ChildRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, "utf8")) as ChildRecord;
    return Number.isInteger(record.pid) && record.pid > 1 ? record : undefined;
  } catch {
    return undefined;
  }
}

/**
 * When a process started: the start time in clock ticks from /proc on Linux, else `ps -o lstart`;
 * null when the process does not exist or cannot be read.
 */
export function startMark(pid: number): string | null {
  if (process.platform === "linux") {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // The command name (field 2) may hold spaces and parentheses: count fields after its last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return fields[19] ?? null;
    } catch {
      return null;
    }
  }
  const ps = spawnSync("ps", ["-o", "lstart=", "-p", String(pid)], { encoding: "utf8" });
  const started = ps.status === 0 ? ps.stdout.trim() : "";
  return started.length > 0 ? started : null;
}
