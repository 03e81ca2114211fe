import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { ConflictError } from "../errors.ts";
import { parseImportSource, withSourceFolder } from "../git/source-folder.ts";
import type { TerminalLogs } from "../harness/terminal-logs.ts";
import type { ChildProcesses } from "../process/child-processes.ts";
import { runCommand } from "../process/run-command.ts";
import { lastLinesSuffix } from "../process/stdio-child.ts";
import type { PluginEvents, PluginManifest } from "../schemas/plugins.ts";
import type { Static } from "@sinclair/typebox";
import type { InstalledVersion } from "../store/plugin-repository.ts";
import { compareVersions, consentKeyOf, displayCommand, readManifest, setupCommandsHere } from "./plugin-manifest.ts";

/** A plugin as its source has it now, before anything is installed. */
export interface FoundPlugin {
  manifest: PluginManifest;
  commit: string | null;
  consentKey: string;
}

export type InstallStep = Static<(typeof PluginEvents)["plugin.install.progress"]>["step"];

export interface PluginInstallerDeps {
  /** `<data>/plugins`: one folder per plugin, one below it per installed version. */
  pluginsDir: string;
  terminals: TerminalLogs;
  children: ChildProcesses;
  /** The environment setup commands run in, and requirements are looked for on. */
  env: Record<string, string | undefined>;
  serverVersion: string;
  setupTimeoutMs: number;
  progress(pluginId: string, step: InstallStep, detail: string, terminalId: string | null): void;
}

/**
 * Reads plugins from their source without running anything, and installs a version: copied from the
 * source (links and `.git` left out) into a folder of its own, then its setup commands for this
 * platform run there without a shell. A version that fails any step leaves nothing behind.
 */
export class PluginInstaller {
  constructor(private readonly deps: PluginInstallerDeps) {}

  /** What the source holds now; `use` may read the fetched folder (a git clone is removed afterwards). */
  inspect<T>(source: string, use: (found: FoundPlugin, folder: string) => T | Promise<T>): Promise<T> {
    return withSourceFolder(parseImportSource(source), this.deps.pluginsDir, ({ folder, commit }) => {
      const manifest = readManifest(folder);
      return use({ manifest, commit, consentKey: consentKeyOf(manifest, commit) }, folder);
    });
  }

  /**
   * Installs the version the source holds, if `check` takes it, it is the one consented to
   * (`consentKey`), this server is new enough and the programs it needs are here; 409 otherwise.
   */
  async install(source: string, consentKey: string, check: (manifest: PluginManifest) => void): Promise<InstalledVersion> {
    const staged = await this.inspect(source, (found, folder) => {
      check(found.manifest);
      if (found.consentKey !== consentKey) {
        throw new ConflictError("the plugin changed since it was consented to (its consentKey differs): discover it again and review what changed");
      }
      this.checkRunnable(found.manifest);
      this.deps.progress(found.manifest.id, "fetching", `copying ${found.manifest.name} ${found.manifest.version}`, null);
      const target = join(this.deps.pluginsDir, found.manifest.id, `${found.manifest.version}-${(found.commit ?? crypto.randomUUID()).slice(0, 12)}`);
      rmSync(target, { recursive: true, force: true });
      mkdirSync(join(target, ".."), { recursive: true });
      cpSync(folder, target, {
        recursive: true,
        filter: (path) => relative(folder, path) === "" || (!lstatSync(path).isSymbolicLink() && relative(folder, path) !== ".git"),
      });
      return { manifest: found.manifest, path: target, sourceCommit: found.commit, consentKey };
    });
    try {
      await this.runSetup(staged);
    } catch (error) {
      removeVersion(staged.path);
      this.deps.progress(staged.manifest.id, "failed", (error as Error).message, null);
      throw error;
    }
    this.deps.progress(staged.manifest.id, "done", `${staged.manifest.name} ${staged.manifest.version} is installed`, null);
    return staged;
  }

  /** The installer's commands as one line: what `install` runs here. */
  installCommand(manifest: PluginManifest): string {
    return setupCommandsHere(manifest).map(displayCommand).join(" && ");
  }

  private checkRunnable(manifest: PluginManifest): void {
    if (compareVersions(this.deps.serverVersion, manifest.minServiceVersion) < 0) {
      throw new ConflictError(`${manifest.name} needs Atrium ${manifest.minServiceVersion} or newer; this is ${this.deps.serverVersion}`);
    }
    for (const executable of manifest.requirements.executables) {
      if (!Bun.which(executable.name, { PATH: this.deps.env.PATH ?? "" })) {
        const help = [executable.installHint, executable.helpUrl].filter(Boolean).join("; ");
        throw new ConflictError(`${manifest.name} needs ${executable.name}, which is not on the PATH${help ? `: ${help}` : ""}`);
      }
    }
  }

  private async runSetup(version: InstalledVersion): Promise<void> {
    for (const argv of setupCommandsHere(version.manifest)) {
      const command = displayCommand(argv);
      const terminal = this.deps.terminals.open(version.manifest.id, command);
      this.deps.progress(version.manifest.id, "setup", command, terminal.id);
      const result = await runCommand(argv, {
        cwd: version.path,
        env: this.deps.env,
        timeoutMs: this.deps.setupTimeoutMs,
        onStdoutLine: terminal.write,
        onStderrLine: terminal.write,
        children: this.deps.children,
      }).catch((error: Error) => ({ code: -1, stdout: "", stderr: error.message, timedOut: false }));
      terminal.finish(result.code);
      if (result.timedOut) throw new ConflictError(`setup command ${command} did not finish within ${this.deps.setupTimeoutMs / 1000} s`);
      if (result.code !== 0) {
        throw new ConflictError(`setup command ${command} failed with exit code ${result.code}${lastLinesSuffix(`${result.stdout}\n${result.stderr}`, 3)}`);
      }
    }
  }
}

/** Removes an installed version's folder, and the plugin's folder when no version is left in it. */
export function removeVersion(path: string): void {
  rmSync(path, { recursive: true, force: true });
  const pluginFolder = dirname(path);
  if (existsSync(pluginFolder) && readdirSync(pluginFolder).length === 0) rmSync(pluginFolder, { recursive: true, force: true });
}
