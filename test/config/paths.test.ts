import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { dataPaths, ensureDataDir, resolveDataDir } from "../../src/config/paths.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

describe("data dir", () => {
  test("ATRIUM_HOME wins, then XDG_DATA_HOME, then the platform default", () => {
    expect(resolveDataDir({ ATRIUM_HOME: "/a", XDG_DATA_HOME: "/x" }, "linux", "/home/u")).toBe("/a");
    expect(resolveDataDir({ XDG_DATA_HOME: "/x" }, "linux", "/home/u")).toBe("/x/atrium");
    expect(resolveDataDir({}, "linux", "/home/u")).toBe("/home/u/.local/share/atrium");
    expect(resolveDataDir({}, "darwin", "/Users/u")).toBe("/Users/u/Library/Application Support/atrium");
  });

  test("its folders are created private to the user", () => {
    const dir = makeTempDir();
    const paths = dataPaths(join(dir.path, "home"));
    ensureDataDir(paths);
    for (const folder of [paths.root, paths.logs, paths.projects, paths.worktrees, paths.skills, paths.plugins]) {
      expect(statSync(folder).mode & 0o777).toBe(0o700);
    }
    dir.remove();
  });
});
