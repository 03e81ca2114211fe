import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
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

export interface InstalledPeer {
  binary: string;
  /** False when this run downloaded it. */
  fromCache: boolean;
}

/** `linux-x64` and the like, as the peers name their per-platform packages. */
export const PLATFORM = `${process.platform}-${process.arch}`;

/**
 * `npm install --prefix` into a folder under `staging`, then copied to
 * ~/.cache/atrium-bench-peers/<name>@<version>; a later run finds it there and installs nothing.
 */
export async function installPeer(peer: PeerPackage, staging: string): Promise<InstalledPeer> {
  const spec = `${peer.name}@${peer.version}`;
  const cached = join(CACHE_DIR, spec);
  const binary = join(cached, "node_modules", peer.binary);
  if (existsSync(binary)) return { binary, fromCache: true };
  const dir = join(staging, spec.replaceAll("/", "+"));
  mkdirSync(dir, { recursive: true });
  const npm = Bun.which("npm");
  if (npm === null) throw new Error("npm is not on the PATH");
  const result = await runToCompletion([npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", spec], INSTALL_TIMEOUT_MS);
  if (result.exitCode !== 0) throw new Error(`npm install ${spec} failed (exit ${result.exitCode}):\n${result.stderr}`);
  if (!existsSync(join(dir, "node_modules", peer.binary))) throw new Error(`npm install ${spec} left no ${peer.binary}`);
  // Copied whole, then the half-copied cache is never mistaken for a good one: the binary goes last.
  rmSync(cached, { recursive: true, force: true });
  mkdirSync(dirname(cached), { recursive: true });
  cpSync(dir, cached, { recursive: true, filter: (source) => source !== join(dir, "node_modules", peer.binary) });
  cpSync(join(dir, "node_modules", peer.binary), binary);
  rmSync(dir, { recursive: true, force: true });
  return { binary, fromCache: false };
}
