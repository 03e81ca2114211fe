import { readFileSync } from "node:fs";
import type { MetaRepository } from "../store/meta-repository.ts";
import { newId } from "../ids.ts";

export interface ServerIdentity {
  serverId: string;
  machineId: string;
}

const MACHINE_ID_FILES = ["/etc/machine-id", "/var/lib/dbus/machine-id"];

/**
 * The OS machine id, hashed with an application key as systemd recommends, so the raw id never
 * leaves the machine. Undefined where the OS has none (macOS, containers without one).
 */
export function osMachineId(files: string[] = MACHINE_ID_FILES): string | undefined {
  for (const file of files) {
    try {
      const raw = readFileSync(file, "utf8").trim();
      // An HMAC with Bun's hasher: node:crypto is not loaded at start (src/system/node-crypto.ts).
      if (raw.length > 0) return `mch_${new Bun.CryptoHasher("sha256", "atrium-machine-id").update(raw).digest("hex").slice(0, 24)}`;
    } catch {
      // try the next location
    }
  }
  return undefined;
}

/** serverId is created once per data dir; machineId is config.json's, else the OS's id when there is one. */
export function loadIdentity(meta: MetaRepository, machineId: string | undefined): ServerIdentity {
  return {
    serverId: meta.getOrInsert("server_id", newId("srv")),
    machineId: machineId ?? meta.getOrInsert("machine_id", newId("mch")),
  };
}
