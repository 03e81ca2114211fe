import { availableParallelism, cpus, loadavg, release, totalmem } from "node:os";

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  kernel: string;
  bun: string;
  loadAverage: number[];
}

export function describeMachine(): MachineInfo {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: release(),
    bun: Bun.version,
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}
