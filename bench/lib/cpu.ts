import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { descendantPids } from "./processes.ts";

const clockTicksPerSecond = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** Fields after the command name of /proc/<pid>/stat, which may itself contain spaces. */
function statFields(pid: number | "self"): number[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
}

/** CPU seconds (user + system, all threads) a process has used; utime and stime are fields 14 and 15. */
export function cpuSeconds(pid: number | "self"): number {
  const fields = statFields(pid);
  return (fields[11]! + fields[12]!) / clockTicksPerSecond;
}

/** Every child this process has reaped, with what they had reaped (cutime, cstime: fields 16 and 17). */
function reapedChildrenSeconds(): number {
  const fields = statFields("self");
  return (fields[13]! + fields[14]!) / clockTicksPerSecond;
}

/** CPU of descendants that ended without coming back to this process when reaped (see `watchProcessTree`). */
let unreapedSeconds = 0;

/** This process, every child it has reaped, and the descendants it could not reap. */
const ownCpuSeconds = () => cpuSeconds("self") + reapedChildrenSeconds() + unreapedSeconds;

/** Often enough that a process's last unsampled moments, when it ends, are a rounding error. */
const TREE_SAMPLE_MS = 250;

/**
 * Keeps the CPU time of `rootPid` and every process under it, sampled while they live, because not all
 * of them come back to this process when reaped: Chromium's zygote leaves its renderers to init, and
 * their CPU would count as other processes'. Assumes no other child of this process is reaped
 * meanwhile (one that is only makes the figure for other processes larger). `sample` reads the tree
 * now, as just before it is stopped; `settle`, once the root has ended and been reaped, counts what
 * never came back as this process's CPU.
 */
export function watchProcessTree(rootPid: number) {
  const reapedAtStart = reapedChildrenSeconds();
  const lastSeen = new Map<number, number>();
  const sample = () => {
    for (const pid of [rootPid, ...descendantPids(rootPid)]) {
      try {
        lastSeen.set(pid, cpuSeconds(pid));
      } catch {
        // ended meanwhile: its last sample stands
      }
    }
  };
  const timer = setInterval(sample, TREE_SAMPLE_MS);
  return {
    sample,
    settle() {
      clearInterval(timer);
      const tree = [...lastSeen.values()].reduce((sum, seconds) => sum + seconds, 0);
      unreapedSeconds += Math.max(0, tree - (reapedChildrenSeconds() - reapedAtStart));
    },
  };
}

/**
 * User, nice and system time of all CPUs. Interrupt and softirq time are left out: loopback traffic
 * is partly handled there and charged to no process, so counting it would blame others for our load.
 */
function machineCpuSeconds(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (fields[0]! + fields[1]! + fields[2]!) / clockTicksPerSecond;
}

/**
 * Measures what the rest of the machine did while we measured: CPU time of all CPUs minus that of
 * this process, its reaped children and the still-running `livePids`, as a percentage of all CPUs.
 * The figures assume a quiet machine; this says whether it was one.
 */
export function interferenceMeter(livePids: number[] = []) {
  const ours = () => ownCpuSeconds() + livePids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const start = { machine: machineCpuSeconds(), ours: ours(), at: performance.now() };
  return {
    read() {
      const wallSeconds = (performance.now() - start.at) / 1000;
      const others = machineCpuSeconds() - start.machine - (ours() - start.ours);
      return Math.max(0, (others / (wallSeconds * availableParallelism())) * 100);
    },
  };
}

/**
 * Waits, up to `maxWaitMs`, for a one-second window in which other processes use less than
 * `quietPercent` of the CPUs; returns the last window's reading. On a shared machine this keeps
 * someone else's test run from landing in the middle of a measurement, without waiting forever.
 */
export async function awaitQuietMachine(quietPercent: number, maxWaitMs: number): Promise<number> {
  const deadline = performance.now() + maxWaitMs;
  for (;;) {
    const window = interferenceMeter();
    await Bun.sleep(1_000);
    const busy = window.read();
    if (busy < quietPercent || performance.now() >= deadline) return busy;
  }
}
