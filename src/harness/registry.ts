import type { AgentQuirks, HarnessDefinition } from "./harness-definition.ts";
import { unknownAuth } from "./harness-definition.ts";
import { claude } from "./definitions/claude.ts";
import { codex } from "./definitions/codex.ts";
import { gemini } from "./definitions/gemini.ts";
import { opencode } from "./definitions/opencode.ts";
import { copilot } from "./definitions/copilot.ts";
import { goose } from "./definitions/goose.ts";
import { qwen } from "./definitions/qwen.ts";
import { echoHarness } from "./definitions/echo.ts";

/** A harness the user declares in config.json. */
export interface CustomHarnessConfig {
  id: string;
  name: string;
  executable: string;
  acpArgs?: string[];
  versionArgs?: string[];
  /** As AgentQuirks, with `selfNotice` a regular expression's source. */
  quirks?: Omit<AgentQuirks, "selfNotice"> & { selfNotice?: string };
}

export function customHarness(config: CustomHarnessConfig): HarnessDefinition {
  return {
    id: config.id,
    name: config.name,
    symbolName: "terminal",
    source: "config",
    launchKind: "executable",
    executable: config.executable,
    versionArgs: config.versionArgs ?? ["--version"],
    acpCommand: [config.executable, ...(config.acpArgs ?? [])],
    ...(config.quirks
      ? { quirks: { ...config.quirks, selfNotice: config.quirks.selfNotice ? selfNoticePattern(config.id, config.quirks.selfNotice) : undefined } }
      : {}),
    installHint: `Declared in config.json: install ${config.executable} yourself and put it on the PATH.`,
    loginMethods: [],
    probeAuth: unknownAuth("a harness declared in config.json has no login check"),
  };
}

function selfNoticePattern(id: string, pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (error) {
    throw new Error(`config.json: harness "${id}" has a quirks.selfNotice that is not a regular expression (${(error as Error).message})`);
  }
}

/**
 * Every harness the server offers: the built-in registry, then the user's own. A user harness may not
 * take a built-in id.
 */
export function harnessRegistry(atriumExecutable: string[], echoSkillsDir: string, custom: CustomHarnessConfig[] = []): HarnessDefinition[] {
  const builtin = [claude, codex, gemini, opencode, qwen, copilot, goose, echoHarness(atriumExecutable, echoSkillsDir)];
  const taken = new Set(builtin.map((definition) => definition.id));
  for (const config of custom) {
    if (taken.has(config.id)) throw new Error(`config.json declares a harness "${config.id}", which is a built-in id`);
    taken.add(config.id);
  }
  return [...builtin, ...custom.map(customHarness)];
}
