import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitFiles, makeBareRepoWith, type BareRepo } from "./git-fixtures.ts";

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
      // The shell, not Bun: every install runs it, and a shell starts in a fraction of the time.
      { argv: ["sh", "-c", "printf '%s' \"$(pwd)\" > setup-ran"], platforms: [] },
      { argv: ["sh", "-c", "exit 9"], platforms: ["plan9"] },
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

/** A plugin's files: the manifest and the demo server with its version. */
function pluginFiles(manifest: Record<string, unknown>): Record<string, string> {
  return {
    "atrium-plugin.json": JSON.stringify(manifest, null, 2),
    "demo-server.ts": readFileSync(DEMO_SERVER, "utf8"),
    "DEMO_VERSION.txt": String(manifest.version),
  };
}

/** Writes a plugin's files into `folder`: the manifest and the demo server with its version. */
export function writePlugin(folder: string, manifest: Record<string, unknown>): void {
  mkdirSync(folder, { recursive: true });
  for (const [name, content] of Object.entries(pluginFiles(manifest))) writeFileSync(join(folder, name), content);
}

/** A bare git repository holding the plugin (standing in for its remote), and how to publish a new version. */
export function pluginRepo(root: string, name: string, manifest: Record<string, unknown>): BareRepo & { publish(manifest: Record<string, unknown>): void } {
  const repo = makeBareRepoWith(root, name, pluginFiles(manifest));
  return {
    bare: repo.bare,
    url: repo.url,
    get work() {
      return repo.work;
    },
    publish: (next) => commitFiles(repo.bare, pluginFiles(next), `version ${String(next.version)}`),
  };
}
