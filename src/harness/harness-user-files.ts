import type { HarnessDefinition, HarnessMcpConfig, SkillsDirContext } from "./harness-definition.ts";

/** A harness whose CLI is on this machine, with the environment of its active account. */
export interface InstalledHarness {
  definition: HarnessDefinition;
  context: SkillsDirContext;
}

/** A harness that reads user-level skills, and where. */
export interface HarnessSkillFolder {
  harnessId: string;
  harnessName: string;
  harnessSymbol: string;
  skillsDir: string;
}

/** Where each installed harness that reads user-level skills keeps them. */
export function skillFolders(installed: InstalledHarness[]): HarnessSkillFolder[] {
  return installed.flatMap(({ definition, context }) => {
    const skillsDir = definition.skillsDir?.(context);
    return skillsDir === undefined ? [] : [{ harnessId: definition.id, harnessName: definition.name, harnessSymbol: definition.symbolName, skillsDir }];
  });
}

/** Where each installed harness lists its own MCP servers. */
export function mcpConfigs(installed: InstalledHarness[]): Array<HarnessMcpConfig & { harnessId: string }> {
  return installed.flatMap(({ definition, context }) => {
    const config = definition.mcpConfig?.(context);
    return config ? [{ harnessId: definition.id, ...config }] : [];
  });
}
