import { ConflictError } from "../errors.ts";
import type { CommitMessage } from "../schemas/git.ts";
import { AGENT_MESSAGE_TIMEOUT_MS, commitMessagePrompt, messageFromReply, type MessageAuthor } from "./agent-commit-message.ts";
import { gitStep } from "./git-step.ts";
import type { Repository } from "./repository-info.ts";

/** A staged file as the summary tells it. */
interface StagedFile {
  /** git's status letter: A, M, T, D, R or C. */
  status: string;
  path: string;
  /** Where a rename or copy came from. */
  from?: string;
  /** null for a binary file. */
  lines: { added: number; removed: number } | null;
}

/** A first line longer than this names counts, not files. */
const FIRST_LINE_MAX = 72;
/** More files than this in one kind of change are counted, not named. */
const NAMED_FILES_MAX = 3;

const VERBS: { verb: string; statuses: string[] }[] = [
  { verb: "Add", statuses: ["A", "C"] },
  { verb: "Update", statuses: ["M", "T"] },
  { verb: "Rename", statuses: ["R"] },
  { verb: "Remove", statuses: ["D"] },
];
const WORDS: Record<string, string> = { A: "added", C: "copied", M: "modified", T: "type changed", R: "renamed", D: "deleted" };

/** "a, b and c". */
const listed = (names: string[]): string => (names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`);
const counted = (count: number): string => `${count} ${count === 1 ? "file" : "files"}`;

/** The first line: each kind of change with its files ("Update a.txt and b.txt; remove c.txt"), or their counts when that is too long. */
function firstLine(files: StagedFile[]): string {
  const groups = VERBS.map(({ verb, statuses }) => ({ verb, files: files.filter((file) => statuses.includes(file.status)) })).filter(
    (group) => group.files.length > 0,
  );
  const phrase = (named: boolean) =>
    groups
      .map(({ verb, files: group }, index) => {
        const said = index === 0 ? verb : verb.toLowerCase();
        if (!named || group.length > NAMED_FILES_MAX) return `${said} ${counted(group.length)}`;
        if (verb === "Rename" && group.length === 1) return `${said} ${group[0]!.from} to ${group[0]!.path}`;
        return `${said} ${listed(group.map((file) => file.path))}`;
      })
      .join("; ");
  const withNames = phrase(true);
  return withNames.length <= FIRST_LINE_MAX ? withNames : phrase(false);
}

/** A body line: the file's status, its path (a rename's from → to) and its line counts. */
function bodyLine(file: StagedFile): string {
  const path = file.from ? `${file.from} → ${file.path}` : file.path;
  const lines = file.lines ? `+${file.lines.added} -${file.lines.removed}` : "binary";
  return `- ${WORDS[file.status] ?? file.status} ${path} (${lines})`;
}

/** Reads `git diff --cached` of the repository: each staged file with its status and its line counts, renames found. */
async function stagedFiles(repo: Repository): Promise<StagedFile[]> {
  const diff = (format: string) => gitStep(["diff", "--cached", "-M", "-z", format, repo.base, "--"], { cwd: repo.root });
  const [statuses, counts] = await Promise.all([diff("--name-status"), diff("--numstat")]);
  const files: StagedFile[] = [];
  const fields = statuses.stdout.split("\0");
  for (let index = 0; index < fields.length - 1; ) {
    const status = fields[index]!.charAt(0);
    if (status === "R" || status === "C") {
      files.push({ status, from: fields[index + 1]!, path: fields[index + 2]!, lines: null });
      index += 3;
    } else {
      files.push({ status, path: fields[index + 1]!, lines: null });
      index += 2;
    }
  }
  // --numstat -z: "added\tremoved\tpath\0", or "added\tremoved\t\0from\0to\0" for a rename; "-" counts for a binary file.
  const numbers = counts.stdout.split("\0");
  for (let index = 0, file = 0; index < numbers.length - 1; file++) {
    const [added = "-", removed = "-", path = ""] = numbers[index]!.split("\t");
    index += path === "" ? 3 : 1;
    const staged = files[file];
    if (staged && added !== "-") staged.lines = { added: Number(added), removed: Number(removed) };
  }
  return files;
}

/** A summary made from the files alone: a first line naming each kind of change and its files, and a body listing every file with its status and line counts. */
function summary(files: StagedFile[]): CommitMessage {
  return { message: `${firstLine(files)}\n\n${files.map(bodyLine).join("\n")}\n`, source: "summary" };
}

/** The agent's message for the staged diff; an error when it gave none. */
async function agentMessage(repo: Repository, files: StagedFile[], author: MessageAuthor): Promise<CommitMessage> {
  const diff = await gitStep(["diff", "--cached", "-M", "--no-color", "--no-ext-diff", repo.base, "--"], { cwd: repo.root });
  const message = messageFromReply(await author(commitMessagePrompt(diff.stdout, files.map(bodyLine)), AGENT_MESSAGE_TIMEOUT_MS));
  if (!message) throw new Error("the agent answered with no message");
  return { message, source: "agent" };
}

/**
 * A commit message for what is staged (409 when nothing is): the `author`'s (a session's agent) from the
 * staged diff when `source` is `agent` (the default where there is an author), else the summary of the
 * files. When the agent was wanted but is missing, fails or does not answer, the summary says why in `agentError`.
 */
export async function writeCommitMessage(repo: Repository, author: MessageAuthor | null, source = author ? "agent" : "summary"): Promise<CommitMessage> {
  const files = await stagedFiles(repo);
  if (files.length === 0) throw new ConflictError(`nothing is staged in ${repo.root}: stage the changes the message is for`);
  if (source === "summary") return summary(files);
  if (!author) return { ...summary(files), agentError: "only a session's agent can be asked, and this folder is not a session's" };
  try {
    return await agentMessage(repo, files, author);
  } catch (error) {
    return { ...summary(files), agentError: (error as Error).message };
  }
}
