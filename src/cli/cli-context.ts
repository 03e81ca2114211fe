import { dataPaths, ensureDataDir, resolveDataDir, type DataPaths } from "../config/paths.ts";
import { loadConfigFile, type ConfigFile } from "../config/config.ts";
import { Store } from "../store/database.ts";
import { migrate } from "../store/migrations.ts";
import { createDatabaseIfMissing } from "../store/new-database.ts";
import { DomainError } from "../errors.ts";

/** An error meant for the person at the terminal: printed as one line, exit code 1. */
export class CliError extends Error {}

export function cliPaths(): DataPaths {
  const paths = dataPaths(resolveDataDir());
  ensureDataDir(paths);
  return paths;
}

export function cliConfig(paths: DataPaths): ConfigFile {
  try {
    return loadConfigFile(paths.config);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/** Opens the database for a CLI command that works on it directly (the server may be running too). */
export function withStore<T>(paths: DataPaths, work: (store: Store) => T): T {
  createDatabaseIfMissing(paths.database);
  const store = Store.open(paths.database);
  try {
    migrate(store, { backupDir: paths.backups });
    return work(store);
  } finally {
    store.close();
  }
}

/** Runs a command body, turning a CliError into a message and exit code 1 instead of a stack trace. */
export async function runCli(work: () => unknown): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof CliError || error instanceof DomainError) {
      process.stderr.write(`atrium: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
