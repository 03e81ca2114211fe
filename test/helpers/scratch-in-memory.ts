import { accessSync, constants } from "node:fs";

/**
 * Preloaded by every test process (bunfig.toml): temp folders go to /dev/shm where there is one (Linux).
 * They hold real files and real SQLite databases, written through the same calls; only the fsyncs,
 * which on a VM's disk take 5–40 ms each, cost nothing there, and the suite starts and stops hundreds
 * of servers, each syncing its database as it closes. No test depends on the disk surviving a power loss.
 */
const MEMORY = "/dev/shm";
try {
  accessSync(MEMORY, constants.W_OK);
  process.env.TMPDIR = MEMORY;
} catch {
  // No such folder (macOS): the system's temp folder, as before.
}
