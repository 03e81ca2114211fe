/** The agent's reply made a commit message, and the prompt's budget (issue 39's "write the message"). */
import { expect, test } from "bun:test";
import { commitMessagePrompt, DIFF_BUDGET_CHARS, messageFromReply } from "../../src/git/agent-commit-message.ts";

test("a fence, a leading label (bold, before or inside the fence), quotes and blank lines are taken off the reply; the message's own quotes stay", () => {
  expect(messageFromReply("\n```\nFix the parser\n\nIt skipped the last line.\n```\n")).toBe("Fix the parser\n\nIt skipped the last line.");
  expect(messageFromReply("Commit message: Fix the parser")).toBe("Fix the parser");
  expect(messageFromReply("**Commit message:**\n```text\nFix the parser\n```")).toBe("Fix the parser");
  expect(messageFromReply("```\ncommit message:\nFix the parser\n```")).toBe("Fix the parser");
  expect(messageFromReply('"Fix the parser"')).toBe("Fix the parser");
  expect(messageFromReply("`Fix the parser`")).toBe("Fix the parser");
  expect(messageFromReply("Rename 'a' to 'b'")).toBe("Rename 'a' to 'b'");
  expect(messageFromReply("'a' and 'b' swapped")).toBe("'a' and 'b' swapped");
  expect(messageFromReply("  \n \n  ")).toBe("");
});

test("the prompt carries the whole diff within the budget; past it, the diff is cut at a line's end and the files listed", () => {
  const small = commitMessagePrompt("diff --git a/a b/a\n+one\n", ["- modified a (+1 -0)"]);
  expect(small).toEndWith("\n\ndiff --git a/a b/a\n+one\n");
  expect(small).not.toContain("- modified a");

  const line = `+${"x".repeat(98)}\n`;
  const big = commitMessagePrompt(line.repeat(1_000), ["- added big (+1000 -0)"]);
  const diffPart = big.slice(big.indexOf("+x"), big.indexOf("\n[The diff is cut here"));
  expect(diffPart.length).toBe(DIFF_BUDGET_CHARS);
  expect(diffPart === line.repeat(DIFF_BUDGET_CHARS / line.length)).toBe(true);
  // A cut that would fall inside a line falls at the end of the line before.
  const odd = commitMessagePrompt(`-${line.repeat(1_000)}`, []);
  expect(odd.indexOf("\n[The diff is cut here") - odd.indexOf("-+x")).toBe(DIFF_BUDGET_CHARS - line.length + 1);
  expect(big).toEndWith(`[The diff is cut here, at 60,000 of its 100,000 characters. All the staged files:]\n- added big (+1000 -0)\n`);
});
