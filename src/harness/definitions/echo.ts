import type { HarnessDefinition } from "../harness-definition.ts";

/**
 * The small ACP agent inside the Atrium binary, so a new user can run a session with no agent
 * installed. Always ready; it needs no login.
 */
export function echoHarness(atriumExecutable: string[], skillsDir: string): HarnessDefinition {
  return {
    id: "echo",
    name: "Echo (built in)",
    symbolName: "echo",
    source: "builtin",
    launchKind: "builtin",
    executable: atriumExecutable[0] ?? "atrium",
    versionArgs: [],
    acpCommand: [...atriumExecutable, "acp-echo", "--skills-dir", skillsDir],
    installHint: "Built into Atrium; nothing to install.",
    loginMethods: [],
    // Skills the echo agent lists (`/skills`), so the whole flow can be shown without a vendor CLI.
    skillsDir: () => skillsDir,
    probeAuth: async () => ({ state: "authenticated", authMethod: "none", detail: "the built-in echo agent needs no login" }),
  };
}
