/** The two ends of the parent/worker protocol: config as JSON in argv, the result as one JSON line. */

export function readWorkerConfig<T>(): T {
  const raw = process.argv[2];
  if (raw === undefined) throw new Error("this worker is started by bench/run.ts with its config as a JSON argument");
  return JSON.parse(raw) as T;
}

/** Writes the result and exits, so that no lingering socket or timer can keep the worker alive. */
export async function finishWorker(result: unknown): Promise<never> {
  await Bun.write(Bun.stdout, `${JSON.stringify(result)}\n`);
  process.exit(0);
}
