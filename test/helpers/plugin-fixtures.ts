import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git, makeBareRepo, type BareRepo } from "./git-fixtures.ts";

const DEMO_SERVER = join(import.meta.dir, "..", "fixtures", "plugins", "demo-server.ts");

/** A manifest for tests: the demo plugin's, with whatever a test changes. */
export function demoManifest(version: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "demo",
    name: "Demo",
    version,
    description: "A plugin for tests",
    iconPath: "icon.png",
    ageRating: 0,
    minServiceVersion: "0.0.1",
    runCommand: ["bun", "demo-server.ts"],
    setupCommands: [
      { argv: ["bun", "-e", "require('fs').writeFileSync('setup-ran', process.cwd())"], platforms: [] },
      { argv: ["bun", "-e", "process.exit(9)"], platforms: ["plan9"] },
    ],
    requirements: { executables: [{ name: "git", installHint: "apt install git", helpUrl: "https://git-scm.com" }] },
    panes: [
      { type: "board", title: "Board", path: "/panes/board/index.html", iconPath: "board.png" },
      { type: "probe", title: "Isolation probe", path: "/panes/probe/index.html", iconPath: "probe.png" },
    ],
    tools: [
      {
        name: "add",
        description: "Adds two numbers",
        path: "/tools/add",
        inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      },
    ],
    ...overrides,
  };
}

/** Writes a plugin's files into `folder`: the manifest and the demo server with its version. */
export function writePlugin(folder: string, manifest: Record<string, unknown>): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "atrium-plugin.json"), JSON.stringify(manifest, null, 2));
  copyFileSync(DEMO_SERVER, join(folder, "demo-server.ts"));
  writeFileSync(join(folder, "DEMO_VERSION.txt"), String(manifest.version));
}

/** A bare git repository holding the plugin (standing in for its remote), and how to publish a new version. */
export function pluginRepo(root: string, name: string, manifest: Record<string, unknown>): BareRepo & { publish(manifest: Record<string, unknown>): void } {
  const repo = makeBareRepo(root, name);
  const publish = (next: Record<string, unknown>) => {
    writePlugin(repo.work, next);
    git(["add", "."], repo.work);
    git(["commit", "--quiet", "-m", `version ${String(next.version)}`], repo.work);
    git(["push", "--quiet", "origin", "HEAD:main"], repo.work);
  };
  publish(manifest);
  return { ...repo, publish };
}
