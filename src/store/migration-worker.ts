import { Store } from "./database.ts";
import { migrate, type Migration, type MigrationReport, type MigrationStepProgress } from "./migrations.ts";

/**
 * Runs the migrations in a worker thread with its own connection, so that the server's event loop
 * stays free to answer health (with the progress) however long a migration takes.
 */
declare const self: Worker;

export interface MigrationJob {
  path: string;
  backupDir: string;
  list: Migration[];
}

export type MigrationWorkerMessage =
  | { type: "progress"; progress: MigrationStepProgress }
  | { type: "done"; report: MigrationReport }
  | { type: "failed"; message: string };

const send = (message: MigrationWorkerMessage) => postMessage(message);

self.onmessage = (event: MessageEvent<MigrationJob>) => {
  const { path, backupDir, list } = event.data;
  let outcome: MigrationWorkerMessage;
  let store: Store | undefined;
  try {
    store = Store.open(path);
    const report = migrate(store, { list, backupDir, onProgress: (progress) => send({ type: "progress", progress }) });
    outcome = { type: "done", report };
  } catch (error) {
    outcome = { type: "failed", message: error instanceof Error ? error.message : String(error) };
  }
  // Closed before answering: the server opens the database for everything else once it hears back.
  store?.close();
  send(outcome);
};
