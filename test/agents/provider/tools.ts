import type { OfferedTool, ToolUse } from "./script.ts";

/** A tool call in the agent's own terms: a JSON input, or the freeform text of a custom tool (Codex's apply_patch). */
export type AgentToolCall = { name: string; input: Record<string, unknown> } | { name: string; freeform: string };

/** Codex's patch format, as its apply_patch tool takes it. */
function patchOf(use: Extract<ToolUse, { op: "write" | "edit" }>): string {
  const body =
    use.op === "write"
      ? [
          `*** Add File: ${use.path}`,
          ...use.content
            .replace(/\n$/, "")
            .split("\n")
            .map((line) => `+${line}`),
        ]
      : [`*** Update File: ${use.path}`, "@@", ...use.oldText.split("\n").map((line) => `-${line}`), ...use.newText.split("\n").map((line) => `+${line}`)];
  return ["*** Begin Patch", ...body, "*** End Patch", ""].join("\n");
}

/**
 * Each operation as the agents' tools take it, by the tool's name: the first name the request offers
 * wins. Names and inputs are the agents' own (Claude Code, Gemini CLI, Qwen Code, OpenCode, Codex).
 */
const MAPPINGS: Record<Exclude<ToolUse["op"], "raw">, Record<string, (use: never, tool: OfferedTool) => Record<string, unknown>>> = {
  write: {
    Write: (use: Extract<ToolUse, { op: "write" }>) => ({ file_path: use.path, content: use.content }),
    write_file: (use: Extract<ToolUse, { op: "write" }>) => ({ file_path: use.path, content: use.content }),
    write: (use: Extract<ToolUse, { op: "write" }>) => ({ filePath: use.path, content: use.content }),
  },
  edit: {
    Edit: (use: Extract<ToolUse, { op: "edit" }>) => ({ file_path: use.path, old_string: use.oldText, new_string: use.newText }),
    // Gemini CLI's replace requires an instruction (its description of the change) beside the strings.
    replace: (use: Extract<ToolUse, { op: "edit" }>) => ({
      file_path: use.path,
      instruction: `Replace the text in ${use.path}`,
      old_string: use.oldText,
      new_string: use.newText,
    }),
    // Qwen Code's edit takes snake_case fields, OpenCode's camelCase ones.
    edit: (use: Extract<ToolUse, { op: "edit" }>, tool: OfferedTool) =>
      tool.fields?.includes("filePath")
        ? { filePath: use.path, oldString: use.oldText, newString: use.newText }
        : { file_path: use.path, old_string: use.oldText, new_string: use.newText },
  },
  run: {
    Bash: (use: Extract<ToolUse, { op: "run" }>) => ({ command: use.command, description: "Runs a command" }),
    run_shell_command: (use: Extract<ToolUse, { op: "run" }>) => ({ command: use.command }),
    bash: (use: Extract<ToolUse, { op: "run" }>) => ({ command: use.command, description: "Runs a command" }),
    exec_command: (use: Extract<ToolUse, { op: "run" }>) => ({ cmd: use.command }),
    shell: (use: Extract<ToolUse, { op: "run" }>) => ({ command: ["bash", "-lc", use.command] }),
  },
  plan: {
    TodoWrite: (use: Extract<ToolUse, { op: "plan" }>) => ({
      todos: use.entries.map((entry) => ({ content: entry.content, status: entry.status, activeForm: entry.content })),
    }),
    update_plan: (use: Extract<ToolUse, { op: "plan" }>) => ({ plan: use.entries.map((entry) => ({ step: entry.content, status: entry.status })) }),
    todowrite: (use: Extract<ToolUse, { op: "plan" }>) => ({
      todos: use.entries.map((entry, index) => ({ id: String(index + 1), content: entry.content, status: entry.status, priority: "medium" })),
    }),
    todo_write: (use: Extract<ToolUse, { op: "plan" }>) => ({
      todos: use.entries.map((entry, index) => ({ id: String(index + 1), content: entry.content, status: entry.status })),
    }),
    write_todos: (use: Extract<ToolUse, { op: "plan" }>) => ({ todos: use.entries.map((entry) => ({ description: entry.content, status: entry.status })) }),
  },
};

/** The call that carries out `use` with one of the offered tools; throws naming what was offered when none fits. */
export function toolCallFor(use: ToolUse, offered: OfferedTool[]): AgentToolCall {
  if (use.op === "raw") return { name: use.name, input: use.input };
  const patch = offered.find((tool) => tool.name === "apply_patch");
  if (patch && (use.op === "write" || use.op === "edit")) {
    return patch.custom ? { name: "apply_patch", freeform: patchOf(use) } : { name: "apply_patch", input: { input: patchOf(use) } };
  }
  const mappings = MAPPINGS[use.op];
  for (const tool of offered) {
    const map = mappings[tool.name] as ((use: ToolUse, tool: OfferedTool) => Record<string, unknown>) | undefined;
    if (map) return { name: tool.name, input: map(use, tool) };
  }
  throw new Error(`no offered tool does "${use.op}": ${offered.map((tool) => tool.name).join(", ")}`);
}
