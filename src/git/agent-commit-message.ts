/**
 * "Write the message" by a session's agent: the prompt it is asked with (the staged diff, bounded) and
 * its reply made into a message that lands editable in the commit box.
 */

/** The staged diff the agent is sent is cut past this many characters; the staged files are listed after the cut. */
export const DIFF_BUDGET_CHARS = 60_000;

/** How long the agent has to answer (its start included), under the HTTP server's 60 s idle timeout. */
export const AGENT_MESSAGE_TIMEOUT_MS = 45_000;

/** Asks an agent for a reply to `prompt` outside any conversation; its text, or an error. */
export type MessageAuthor = (prompt: string, timeoutMs: number) => Promise<string>;

const INSTRUCTION =
  "Write a git commit message for the staged changes below. Answer with the commit message only, nothing before or after it: " +
  "a first line of at most 72 characters in the imperative mood, then, if it helps, a blank line and a short body saying what changed and why. " +
  "Do not use any tools, run commands or change files: everything you need is here.";

/** The prompt: the instruction, then the diff, cut at the budget (at a line's end) with `fileList` after the cut. */
export function commitMessagePrompt(diff: string, fileList: string[]): string {
  if (diff.length <= DIFF_BUDGET_CHARS) return `${INSTRUCTION}\n\n${diff}`;
  const cut = diff.slice(0, diff.lastIndexOf("\n", DIFF_BUDGET_CHARS - 1) + 1 || DIFF_BUDGET_CHARS);
  const note = `[The diff is cut here, at ${DIFF_BUDGET_CHARS.toLocaleString("en")} of its ${diff.length.toLocaleString("en")} characters. All the staged files:]`;
  return `${INSTRUCTION}\n\n${cut}\n${note}\n${fileList.join("\n")}\n`;
}

const FENCE = /^```[\w-]*\n([\s\S]*?)\n```$/;
const LABEL = /^(\*\*|__)?commit message:?(\*\*|__)?:?[ \t]*\n?/i;
const QUOTED = /^(["'`])([\s\S]*)\1$/;
const unfenced = (text: string): string => FENCE.exec(text)?.[1]?.trim() ?? text;

/**
 * The reply as a message: a code fence around it, a leading "Commit message:" (bold or not, before or
 * inside the fence), quotes around it and the blank lines around it are taken off.
 */
export function messageFromReply(reply: string): string {
  const text = unfenced(unfenced(reply.trim()).replace(LABEL, "").trim());
  const quoted = QUOTED.exec(text);
  return quoted && !quoted[2]!.includes(quoted[1]!) ? quoted[2]!.trim() : text;
}
