import { basename } from "node:path";
import { buildInfo } from "./build-info.ts";

/**
 * A file imported `with { type: "file" }`, by the path the import gave. In the compiled executable that
 * is the embedded file's name under the executable's root, but a module in a chunk of its own (the ESM
 * build's splitting) is given it without that root: the file is found among the embedded ones by name.
 */
export function bundledFile(path: string): Blob {
  if (!buildInfo.compiled) return Bun.file(path);
  const name = basename(path);
  return Bun.embeddedFiles.find((file) => (file as File).name === name) ?? Bun.file(path);
}
