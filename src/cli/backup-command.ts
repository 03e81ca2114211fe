import { defineCommand } from "citty";
import { resolve } from "node:path";
import { acquireDataDirLock, DataDirBusyError } from "../server/data-dir-lock.ts";
import { backUpTo, BackupError, restoreFrom } from "../store/backup.ts";
import { CliError, cliPaths, runCli, withStore } from "./cli-context.ts";

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A BackupError is the person's to read, as a CLI error. */
function said<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof BackupError || error instanceof DataDirBusyError) throw new CliError(error.message);
    throw error;
  }
}

export const backupCommand = defineCommand({
  meta: { name: "backup", description: "Write a consistent copy of the database to FILE (0600), also while the server runs" },
  args: { file: { type: "positional", required: true, description: "A new file to write the copy to" } },
  run: ({ args }) =>
    runCli(() => {
      const file = resolve(args.file);
      const { schemaVersion, bytes } = withStore(cliPaths(), (store) => said(() => backUpTo(store, file)));
      process.stdout.write(`backed up to ${file} (schema ${schemaVersion}, ${mib(bytes)})\n`);
    }),
});

export const restoreCommand = defineCommand({
  meta: { name: "restore", description: "Put a backup in place of the database; refused while a server runs on the data dir" },
  args: { file: { type: "positional", required: true, description: "A file written by `atrium backup`" } },
  run: ({ args }) =>
    runCli(() => {
      const file = resolve(args.file);
      const paths = cliPaths();
      // Taken as a server takes it: no server can start on the data dir while the database is replaced.
      const release = said(() => acquireDataDirLock(paths.lock));
      try {
        const restored = said(() => restoreFrom(file, paths.database, paths.backups));
        const kept = restored.kept ? `; the database it replaced is kept at ${restored.kept}` : "";
        process.stdout.write(`restored ${file} (schema ${restored.schemaVersion})${kept}; the next start migrates it where it is older\n`);
      } finally {
        release();
      }
    }),
});
