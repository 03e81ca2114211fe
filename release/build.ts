import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { compileBinary } from "./compile.ts";

/** `npm run build`: the executable for this machine at dist/atrium. */
const outfile = join(import.meta.dir, "..", "dist", "atrium");
const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { stderr: "ignore" }).stdout.toString().trim();
const started = performance.now();
await compileBinary({
  outfile,
  version: process.env.ATRIUM_VERSION ?? packageJson.version,
  buildNumber: Number(process.env.ATRIUM_BUILD_NUMBER ?? 0),
  channel: process.env.ATRIUM_CHANNEL ?? "stable",
  commit,
});
console.log(`wrote ${outfile} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
