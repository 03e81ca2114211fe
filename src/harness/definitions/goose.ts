import { unknownAuth, type HarnessDefinition } from "../harness-definition.ts";

export const goose: HarnessDefinition = {
  id: "goose",
  name: "Goose",
  symbolName: "goose",
  source: "builtin",
  launchKind: "executable",
  executable: "goose",
  versionArgs: ["--version"],
  acpCommand: ["goose", "acp"],
  brewFormula: "block-goose-cli",
  installHint: "brew install block-goose-cli, or see the Goose documentation",
  loginMethods: [],
  probeAuth: unknownAuth("Goose keeps provider keys in its own configuration; it has no offline login check"),
};
