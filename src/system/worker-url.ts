import { dirname, join } from "node:path";
import { buildInfo } from "./build-info.ts";

/**
 * Where the worker module at `pathInSrc` (e.g. "store/migration-worker.ts") is loaded from. From source:
 * that file under src/. In the compiled executable each worker is an entrypoint of its own, kept at its
 * path under the executable's root (release/compile.ts builds with --root at the repository), while the
 * code that starts it may sit in a chunk at that root: a URL relative to the caller would miss it.
 */
export function workerUrl(pathInSrc: string): string {
  if (buildInfo.compiled) return join(dirname(Bun.main), "src", pathInSrc);
  return new URL(`../${pathInSrc}`, import.meta.url).href;
}
