import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

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
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return (fields[11]! + fields[12]!) / clockTicksPerSecond;
}

/** This process plus every child it has reaped (cutime, cstime: fields 16 and 17). */
function ownCpuSeconds(): number {
  const fields = statFields("self");
  return (fields[11]! + fields[12]! + fields[13]! + fields[14]!) / clockTicksPerSecond;
}

/**
 * User, nice and system time of all CPUs. Interrupt and softirq time are left out: loopback traffic
 * is partly handled there and charged to no process, so counting it would blame others for our load.
 */
function machineCpuSeconds(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (fields[0]! + fields[1]! + fields[2]!) / clockTicksPerSecond;
}

export interface InterferenceMeter {
  /** CPU used by anything but us since the meter started, as a percentage of all CPUs. */
  read(): number;
}

/**
 * Measures what the rest of the machine did while we measured: CPU time of all CPUs minus that of
 * this process, its reaped children and the still-running `livePids`. The figures assume a quiet
 * machine; this says whether it was one.
 */
export function interferenceMeter(livePids: number[] = []): InterferenceMeter {
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
