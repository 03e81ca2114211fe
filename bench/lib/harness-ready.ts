/** A harness as GET /v1/harnesses lists it, the fields that say whether sessions can use it. */
export interface HarnessReadiness {
  id: string;
  enabled: boolean;
  readiness: { state: string; detail: string | null };
}

/** Polls `list` (GET /v1/harnesses) until harness `id` is enabled and ready; the server's first scan finds it. */
export async function awaitHarnessReady(list: () => Promise<HarnessReadiness[]>, id: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const harness = (await list()).find((candidate) => candidate.id === id);
    if (harness?.enabled && harness.readiness.state === "ready") return;
    if (performance.now() > deadline) throw new Error(`harness ${id} was not ready within ${timeoutMs} ms: ${JSON.stringify(harness?.readiness)}`);
    await Bun.sleep(50);
  }
}
