import { defineCommand } from "citty";
import { runEchoAgentOnStdio } from "../acp-echo/echo-agent.ts";

/** Runs the built-in echo agent over stdio; the server starts it for sessions of harness `echo`. */
export const acpEchoCommand = defineCommand({
  meta: { name: "acp-echo", description: "Run the built-in echo ACP agent on stdin/stdout (used by sessions)" },
  args: { "skills-dir": { type: "string", description: "The folder whose skills /skills lists" } },
  async run({ args }) {
    await runEchoAgentOnStdio({ skillsDir: args["skills-dir"] });
  },
});
