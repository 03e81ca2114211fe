import { describe, expect, test } from "bun:test";
import { chooseSuggestion, commandOf, matchingCommands, mentionsIn, triggerAt } from "../../src/console/ui/composer/suggestion-trigger.ts";

const COMMANDS = [
  { name: "compact", description: "Compact the conversation", inputHint: null },
  { name: "review", description: "Review a pull request", inputHint: "PR number" },
  { name: "pr-comments", description: "Read a PR's comments", inputHint: null },
];

describe("the composer's suggestion triggers", () => {
  test("a slash starting the prompt asks for commands, until a space; an @ starting a word asks for files", () => {
    expect(triggerAt("/rev", 4)).toEqual({ kind: "command", query: "rev", start: 0, end: 4 });
    expect(triggerAt("/", 1)).toEqual({ kind: "command", query: "", start: 0, end: 1 });
    expect(triggerAt("/review 12", 10)).toBeNull();
    expect(triggerAt("a /rev", 6)).toBeNull();
    expect(triggerAt("look at @src/a", 14)).toEqual({ kind: "file", query: "src/a", start: 8, end: 14 });
    expect(triggerAt("@", 1)).toEqual({ kind: "file", query: "", start: 0, end: 1 });
    expect(triggerAt("mail me@example", 15)).toBeNull();
    // Only the text before the caret counts.
    expect(triggerAt("@app more", 4)).toEqual({ kind: "file", query: "app", start: 0, end: 4 });
  });

  test("commands starting with what is typed come first, then those holding it, in any case", () => {
    expect(matchingCommands(COMMANDS, "").map((command) => command.name)).toEqual(["compact", "review", "pr-comments"]);
    expect(matchingCommands(COMMANDS, "C").map((command) => command.name)).toEqual(["compact", "pr-comments"]);
    expect(matchingCommands(COMMANDS, "view").map((command) => command.name)).toEqual(["review"]);
    expect(matchingCommands(COMMANDS, "zzz")).toEqual([]);
  });

  test("a choice replaces what was typed, with a space after it and the caret there", () => {
    expect(chooseSuggestion("/rev", { kind: "command", query: "rev", start: 0, end: 4 }, "review")).toEqual({ text: "/review ", caret: 8 });
    expect(chooseSuggestion("see @ap and more", { kind: "file", query: "ap", start: 4, end: 7 }, "src/app.ts")).toEqual({
      text: "see @src/app.ts and more",
      caret: 16,
    });
    // The rest of a word the caret was inside goes with it.
    expect(chooseSuggestion("@apXX next", { kind: "file", query: "ap", start: 0, end: 3 }, "app.ts")).toEqual({ text: "@app.ts next", caret: 8 });
  });

  test("the command a prompt starts with, and the chosen files it still mentions", () => {
    expect(commandOf("/review 12", COMMANDS)?.inputHint).toBe("PR number");
    expect(commandOf("/review", COMMANDS)?.name).toBe("review");
    expect(commandOf("/reviewer", COMMANDS)).toBeUndefined();
    expect(commandOf("review", COMMANDS)).toBeUndefined();
    expect(mentionsIn("see @a.ts and @b.ts", ["b.ts", "a.ts", "c.ts", "a.ts"])).toEqual(["b.ts", "a.ts"]);
    expect(mentionsIn("see @a.tsx", ["a.ts"])).toEqual([]);
  });
});
