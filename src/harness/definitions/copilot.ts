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
  // `mcpServers` in ~/.copilot/mcp-config.json, in Claude's dialect (`type: local` is stdio).
  mcpConfig: ({ home }) => ({ path: join(home, ".copilot", "mcp-config.json"), format: "claude" }),
  // Seen with Copilot CLI 1.0.102: it connects to the HTTP servers given in session/new and never starts the stdio ones.
  mcpCaveat: ({ transport }) =>
    transport === "stdio" ? "Copilot CLI starts no stdio MCP server given over ACP (seen in 1.0.102): add it to Copilot's own MCP config instead" : undefined,
  probeAuth: unknownAuth("Copilot CLI has no offline way to read its login state"),
};
