import type { MigrationReport, MigrationStepProgress } from "./migrations.ts";
import type { MigrationJob, MigrationWorkerMessage } from "./migration-worker.ts";
import { workerUrl } from "../system/worker-url.ts";

/**
 * Migrates the database file in a worker thread (see migration-worker.ts). Resolves with the report,
 * rejects with the migration's error; the worker ends either way.
 */
export function migrateInBackground(job: MigrationJob, onProgress: (progress: MigrationStepProgress) => void): Promise<MigrationReport> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl("store/migration-worker.ts"));
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      worker.terminate();
      outcome();
    };
    worker.addEventListener("message", (event: MessageEvent<MigrationWorkerMessage>) => {
      const message = event.data;
      if (message.type === "progress") onProgress(message.progress);
      else if (message.type === "done") settle(() => resolve(message.report));
      else settle(() => reject(new Error(message.message)));
    });
    worker.addEventListener("error", (event) => settle(() => reject(new Error(`the migration worker failed: ${event.message}`))));
    worker.addEventListener("close", () => settle(() => reject(new Error("the migration worker ended without an answer"))));
    worker.postMessage(job);
  });
}
