import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { runToCompletion } from "../processes.ts";

/** Installs kept between runs: each peer is a 150–350 MB download that never changes for a version. */
const CACHE_DIR = join(homedir(), ".cache", "atrium-bench-peers");
const INSTALL_TIMEOUT_MS = 600_000;

export interface PeerPackage {
  name: string;
  version: string;
  /** The executable inside the install that the package's bin ends up running, relative to node_modules. */
  binary: string;
}

/** `linux-x64` and the like, as the peers name their per-platform packages. */
export const PLATFORM = `${process.platform}-${process.arch}`;

/**
 * `npm install --prefix` into ~/.cache/atrium-bench-peers/<name>@<version>.partial, renamed without
 * it once whole (so a broken install is never mistaken for a good one); a later run finds it there
 * and installs nothing.
 */
export async function installPeer(peer: PeerPackage): Promise<string> {
  const cached = join(CACHE_DIR, `${peer.name}@${peer.version}`);
  const binary = join(cached, "node_modules", peer.binary);
  if (existsSync(binary)) return binary;
  const npm = Bun.which("npm");
  if (npm === null) throw new Error("npm is not on the PATH");
  const partial = `${cached}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const spec = `${peer.name}@${peer.version}`;
  const result = await runToCompletion([npm, "install", "--prefix", partial, "--no-audit", "--no-fund", "--loglevel=error", spec], INSTALL_TIMEOUT_MS);
  if (result.exitCode !== 0) throw new Error(`npm install ${spec} failed (exit ${result.exitCode}):\n${result.stderr}`);
  if (!existsSync(join(partial, "node_modules", peer.binary))) throw new Error(`npm install ${spec} left no ${peer.binary}`);
  rmSync(cached, { recursive: true, force: true });
  renameSync(partial, cached);
  return binary;
}
