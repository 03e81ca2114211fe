import { readdirSync, readFileSync } from "node:fs";

/**
 * The pids of the live processes in session `sessionId` (a terminal's shell and whatever it started, in any
 * process group: a shell with job control puts each job in a group of its own). Read from /proc, so
 * Linux only; elsewhere none are found and only the shell's process group is signalled.
 */
export function sessionProcesses(sessionId: string | number): number[] {
  // A session is named by its leader's pid. 0 is what /proc shows for every process whose leader is
  // outside this pid namespace (a container's init, the shell that started us): never ours to end.
  if (!(Number(sessionId) > 1)) return [];
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // The command name (field 2) may hold spaces and parentheses: fields after its last ")" are state, ppid, pgrp, session.
      const [state, , , session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // A zombie has ended already; only its parent's wait is missing.
      if (session === String(sessionId) && state !== "Z") members.push(Number(pid));
    } catch {
      // it exited meanwhile
    }
  }
  return members;
}

/** How long a killed session has to be gone: SIGKILL is sent at once, but each process still has to be scheduled to exit. */
const GONE_WITHIN_MS = 2000;

/** SIGKILLs every process still in the session, and resolves once none is left (or the wait ran out). */
export async function killSession(sessionId: number): Promise<void> {
  const deadline = Date.now() + GONE_WITHIN_MS;
  for (let members = sessionProcesses(sessionId); members.length > 0 && Date.now() < deadline; members = sessionProcesses(sessionId)) {
    for (const pid of members) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // it exited meanwhile
      }
    }
    await Bun.sleep(10);
  }
}
