import { join } from "node:path";
import { unknownAuth, type HarnessDefinition } from "../harness-definition.ts";

export const copilot: HarnessDefinition = {
  id: "copilot",
  name: "Copilot CLI",
  symbolName: "copilot",
  source: "builtin",
  launchKind: "executable",
  executable: "copilot",
  versionArgs: ["--version"],
  acpCommand: ["copilot", "--acp"],
  npmPackage: "@github/copilot",
  installHint: "npm install -g @github/copilot",
  loginMethods: [{ id: "github", name: "GitHub account", description: "Sign in with GitHub", kind: "browser" }],
  // https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-skills: personal skills in ~/.copilot/skills.
  skillsDir: ({ home }) => join(home, ".copilot", "skills"),
  probeAuth: unknownAuth("Copilot CLI has no offline way to read its login state"),
};
