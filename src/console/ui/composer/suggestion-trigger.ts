import type { AvailableCommand } from "../../../schemas/sessions.ts";

/** What the text before the caret asks suggestions for: a slash command (`/` starting the prompt) or a file (`@` starting a word). */
export interface Trigger {
  kind: "command" | "file";
  /** What is typed after the `/` or `@`. */
  query: string;
  /** Where the `/` or `@` is. */
  start: number;
  /** The caret. */
  end: number;
}

export function triggerAt(text: string, caret: number): Trigger | null {
  const before = text.slice(0, caret);
  const command = /^\/(\S*)$/.exec(before);
  if (command) return { kind: "command", query: command[1]!, start: 0, end: caret };
  const file = /(?:^|\s)@([^\s@]*)$/.exec(before);
  if (file) return { kind: "file", query: file[1]!, start: caret - file[1]!.length - 1, end: caret };
  return null;
}

/** Commands whose name starts with the query first, then those holding it (any case), each group in the agent's order. */
export function matchingCommands(commands: readonly AvailableCommand[], query: string): AvailableCommand[] {
  const lower = query.toLowerCase();
  const starting = commands.filter((command) => command.name.toLowerCase().startsWith(lower));
  const holding = commands.filter((command) => !command.name.toLowerCase().startsWith(lower) && command.name.toLowerCase().includes(lower));
  return [...starting, ...holding];
}

/** The text with the trigger replaced by `chosen` and a space, and where the caret goes (after that space). */
export function chooseSuggestion(text: string, trigger: Trigger, chosen: string): { text: string; caret: number } {
  const rest = text.slice(trigger.end).replace(/^\S*/, "");
  const inserted = `${text[trigger.start]}${chosen} `;
  return { text: text.slice(0, trigger.start) + inserted + rest.replace(/^ /, ""), caret: trigger.start + inserted.length };
}

/** The command the prompt starts with (`/name` then a space or its end), if the agent has one by that name. */
export function commandOf(text: string, commands: readonly AvailableCommand[]): AvailableCommand | undefined {
  const name = /^\/(\S+)(?:\s|$)/.exec(text)?.[1];
  return name === undefined ? undefined : commands.find((command) => command.name === name);
}

/** The chosen files the text still mentions (`@path` followed by a space or its end), each once, in the order chosen. */
export function mentionsIn(text: string, chosen: readonly string[]): string[] {
  return [...new Set(chosen)].filter((path) => text.split(/\s/).includes(`@${path}`));
}
