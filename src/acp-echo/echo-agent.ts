import { agent, ndJsonStream, PROTOCOL_VERSION, RequestError, type AgentContext } from "@agentclientprotocol/sdk";
import type * as acp from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { readSkill, skillFolderNames } from "../skills/skill-folder.ts";

/**
 * The built-in `echo` agent: a real ACP agent, so a new user sees every feature with no vendor CLI.
 * It answers prompts by echoing them, and commands show the rest:
 *   /long N   a reply streamed in N chunks      /plan    a three-step plan (then leaves plan mode)
 *   /ask      a permission question             /usage   usage and cost
 *   /title T  renames the session               /skills  the skills in its skills folder
 *   /help     this list
 * It lists them to the client as its slash commands (ACP available_commands_update) after each
 * session/new and session/load, as claude-agent-acp does.
 */
const COMMANDS: acp.AvailableCommand[] = [
  { name: "long", description: "stream a reply of N chunks", input: { hint: "N" } },
  { name: "plan", description: "emit a plan; in plan mode, then leave it (the plan waits for approval)" },
  { name: "ask", description: "ask a permission question" },
  { name: "usage", description: "report usage" },
  { name: "title", description: "rename the session", input: { hint: "TEXT" } },
  { name: "skills", description: "list the skills in its skills folder" },
  { name: "help", description: "list these commands" },
];

const HELP = ["Echo agent commands:", ...COMMANDS.map(({ name, description, input }) => `/${name}${input ? ` ${input.hint}` : ""} - ${description}`)].join(
  "\n",
);

interface EchoSession {
  mode: string;
  cancelled: boolean;
  promptTokens: number;
}

const modeOption = (current: string): acp.SessionConfigOption => ({
  id: "mode",
  name: "Mode",
  description: "Plan mode asks for approval before acting",
  category: "mode",
  type: "select",
  currentValue: current,
  options: [
    { value: "default", name: "Default", description: "Echo at once" },
    { value: "plan", name: "Plan", description: "Plan first" },
  ],
});

function promptText(blocks: acp.ContentBlock[]): string {
  return blocks.map((block) => (block.type === "text" ? block.text : block.type === "image" ? `[image ${block.mimeType}]` : `[${block.type}]`)).join("\n");
}

/** Wires the echo agent to a pair of streams (stdio when run as `atrium acp-echo`). */
export interface EchoAgentOptions {
  /** Where it reads skills, as a vendor CLI reads its own folder (the echo harness's in the data dir). */
  skillsDir?: string;
}

export function runEchoAgent(output: WritableStream<Uint8Array>, input: ReadableStream<Uint8Array>, options: EchoAgentOptions = {}): Promise<void> {
  const sessions = new Map<string, EchoSession>();
  const session = (id: string): EchoSession => {
    const found = sessions.get(id);
    if (!found) throw RequestError.invalidParams(undefined, `unknown session ${id}`);
    return found;
  };
  const say = (client: AgentContext, sessionId: string, text: string) =>
    client.notify("session/update", { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
  /** Lists its commands once the session's answer is out, as claude-agent-acp does. */
  const listCommands = (client: AgentContext, sessionId: string) =>
    setTimeout(
      () => void client.notify("session/update", { sessionId, update: { sessionUpdate: "available_commands_update", availableCommands: COMMANDS } }),
      0,
    );

  const app = agent({ name: "atrium-echo" })
    .onRequest("initialize", () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: { image: true } },
      agentInfo: { name: "atrium-echo", version: "1" },
    }))
    .onRequest("session/new", ({ client }) => {
      const sessionId = `echo-${crypto.randomUUID()}`;
      sessions.set(sessionId, { mode: "default", cancelled: false, promptTokens: 0 });
      listCommands(client, sessionId);
      return { sessionId, configOptions: [modeOption("default")] };
    })
    .onRequest("session/load", ({ params, client }) => {
      // Nothing to replay: the server keeps the conversation; the echo agent only needs the id.
      if (!sessions.has(params.sessionId)) sessions.set(params.sessionId, { mode: "default", cancelled: false, promptTokens: 0 });
      listCommands(client, params.sessionId);
      return { configOptions: [modeOption(sessions.get(params.sessionId)!.mode)] };
    })
    .onRequest("session/set_config_option", ({ params }) => {
      const state = session(params.sessionId);
      if (params.configId !== "mode" || (params.value !== "default" && params.value !== "plan")) {
        throw RequestError.invalidParams(undefined, `unknown option ${params.configId}=${String(params.value)}`);
      }
      state.mode = String(params.value);
      return { configOptions: [modeOption(state.mode)] };
    })
    .onNotification("session/cancel", ({ params }) => {
      const state = sessions.get(params.sessionId);
      if (state) state.cancelled = true;
    })
    .onRequest("session/prompt", async ({ params, client }) => {
      const state = session(params.sessionId);
      state.cancelled = false;
      const text = promptText(params.prompt).trim();
      const sessionId = params.sessionId;
      state.promptTokens += Math.ceil(text.length / 4);
      const [command, ...rest] = text.split(/\s+/);
      if (command === "/help") await say(client, sessionId, HELP);
      else if (command === "/long") {
        const count = Math.min(Math.max(Number(rest[0]) || 100, 1), 1_000_000);
        for (let index = 0; index < count; index++) {
          if (state.cancelled) return { stopReason: "cancelled" };
          await say(client, sessionId, `chunk ${index} `);
          // Yield now and then so a cancel notification is read while streaming.
          if (index % 50 === 49) await Bun.sleep(1);
        }
      } else if (command === "/plan") {
        await client.notify("session/update", {
          sessionId,
          update: {
            sessionUpdate: "plan",
            entries: [
              { content: "Read the code", priority: "high", status: "completed" },
              { content: "Make the change", priority: "high", status: "in_progress" },
              { content: "Run the tests", priority: "medium", status: "pending" },
            ],
          },
        });
        await say(client, sessionId, "Here is the plan.");
        // In plan mode it leaves plan mode on its own once the plan is out, as Claude's ExitPlanMode does,
        // so the server asks the user to approve the plan.
        if (state.mode === "plan") {
          state.mode = "default";
          await client.notify("session/update", { sessionId, update: { sessionUpdate: "config_option_update", configOptions: [modeOption(state.mode)] } });
        }
      } else if (command === "/ask") {
        const answer = await client.request("session/request_permission", {
          sessionId,
          // As the real agents ask: the call with the diff it would write and the file it touches.
          toolCall: {
            toolCallId: `echo-tool-${Date.now()}`,
            title: "Write hello.txt",
            kind: "edit",
            status: "pending",
            content: [{ type: "diff", path: join(process.cwd(), "hello.txt"), oldText: null, newText: "Hello from the echo agent.\n" }],
            locations: [{ path: join(process.cwd(), "hello.txt") }],
          },
          options: [
            { optionId: "allow", name: "Allow", kind: "allow_once" },
            { optionId: "deny", name: "Deny", kind: "reject_once" },
          ],
        });
        if (answer.outcome.outcome === "cancelled") return { stopReason: "cancelled" };
        await say(client, sessionId, `You chose ${answer.outcome.optionId}.`);
      } else if (command === "/usage") {
        await client.notify("session/update", {
          sessionId,
          update: { sessionUpdate: "usage_update", used: state.promptTokens * 10, size: 200_000, cost: { amount: 0.01, currency: "USD" } },
        });
        await say(client, sessionId, "Usage reported.");
      } else if (command === "/skills") {
        await say(client, sessionId, describeSkills(options.skillsDir));
      } else if (command === "/title") {
        await client.notify("session/update", { sessionId, update: { sessionUpdate: "session_info_update", title: rest.join(" ") || "Echo" } });
        await say(client, sessionId, "Renamed.");
      } else {
        const reply = `Echo: ${text}`;
        // Streamed word by word, as a real agent streams.
        for (const word of reply.split(/(?<= )/)) {
          if (state.cancelled) return { stopReason: "cancelled" };
          await say(client, sessionId, word);
        }
      }
      return { stopReason: "end_turn" };
    });

  const connection = app.connect(ndJsonStream(output, input));
  return connection.closed;
}

/** One line per skill in `dir` (a linked one read through its link), as an agent would see them. */
function describeSkills(dir: string | undefined): string {
  const lines = (dir ? skillFolderNames(dir) : [])
    .map((name) => readSkill(join(dir!, name), name))
    .map((skill) => `${skill.name}: ${skill.invalid ? "(invalid)" : skill.description}`);
  return lines.length > 0 ? `Skills:\n${lines.join("\n")}` : "No skills.";
}

/** `atrium acp-echo`: the echo agent on this process's stdio. */
export function runEchoAgentOnStdio(options: EchoAgentOptions = {}): Promise<void> {
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise((resolve, reject) => process.stdout.write(chunk, (error) => (error ? reject(error) : resolve())));
    },
  });
  return runEchoAgent(output, Bun.stdin.stream(), options);
}
