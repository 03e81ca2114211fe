import { type Static, type TObject, Type } from "@sinclair/typebox";
import { AGENT_MESSAGE_TIMEOUT_MS, DIFF_BUDGET_CHARS, type MessageAuthor } from "../../git/agent-commit-message.ts";
import type { GitReads } from "../../git/git-reads.ts";
import type { PullRequests } from "../../git/pull-requests.ts";
import type { WorkingTreeEdits } from "../../git/working-tree-edits.ts";
import { ChangeList } from "../../schemas/changes.ts";
import {
  Branch,
  BranchList,
  CheckoutBody,
  Commit,
  CommitBody,
  CommitLog,
  CommitMessage,
  CommitMessageBody,
  Discard,
  DiscardUndoBody,
  GitSelection,
  LogQuery,
  NewBranch,
  NewPullRequest,
  PullBody,
  PullRequest,
  PushBody,
  RemoteResult,
} from "../../schemas/git.ts";
import { defineRoute } from "../route.ts";

/** Where git acts: a location, a worktree or a session's folder, named by the path's parameters. */
export interface GitBase<P extends TObject> {
  /** The path the routes go under, e.g. `/v1/sessions/:id`. */
  path: string;
  /** What the summaries call it: "location", "worktree", "session's folder". */
  noun: string;
  tag: string;
  params: P;
  folder(params: Static<P>): string;
  /** The agent that can write a commit message here (a session's); none for a location or a worktree. */
  author?(params: Static<P>): MessageAuthor;
}

const PullRequestNumber = Type.Object({ number: Type.String({ pattern: "^[1-9][0-9]{0,9}$", description: "The pull request's number." }) });

const REPOSITORY_STATE = {
  "409": "The folder is not a git repository (or is gone), another git process holds its index.lock, or git refused the change (its words in `error`).",
};
const SELECTION =
  "`paths` name whole files as the change list names them (a rename by its new path); `hunks` name parts of modified files " +
  "by `path` and the `@@ -a,b +c,d @@` line of the file's diff against HEAD (`…/changes/diff`). 400 when nothing is named, " +
  "404 for a path with no change or a hunk its diff lacks. Answers with the first page of the changes after it.";

/** Git in the base's repository: stage, unstage, discard and undo it, commit; branches, checkout and the log. */
const REMOTE_UNREACHABLE = { ...REPOSITORY_STATE, "502": "The remote could not be reached, or refused access (git's words in `error`)." };

export function gitRoutes<P extends TObject>(base: GitBase<P>, edits: WorkingTreeEdits, reads: GitReads, pullRequests: PullRequests) {
  return [
    defineRoute({
      method: "POST",
      path: `${base.path}/git/stage`,
      tag: base.tag,
      summary: `Stage files or hunks in the ${base.noun}`,
      description: `${SELECTION} A hunk already staged is left as it is.`,
      params: base.params,
      body: GitSelection,
      response: ChangeList,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params, body }) => edits.stage(base.folder(params), body),
    }),
    defineRoute({
      method: "POST",
      path: `${base.path}/git/unstage`,
      tag: base.tag,
      summary: `Unstage files or hunks in the ${base.noun}`,
      description: `${SELECTION} The working tree keeps the changes; a hunk not staged is left as it is.`,
      params: base.params,
      body: GitSelection,
      response: ChangeList,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params, body }) => edits.unstage(base.folder(params), body),
    }),
    defineRoute({
      method: "POST",
      path: `${base.path}/git/discard`,
      tag: base.tag,
      summary: `Discard changes in the ${base.noun}, undoably`,
      description:
        `${SELECTION.replace(" Answers with the first page of the changes after it.", "")} Files go back to HEAD in the index and the working tree; ` +
        "untracked files named are deleted. What is thrown away is kept first, untracked files too, in a commit under " +
        "`refs/atrium/discarded/<id>`; `…/git/discard/undo` with the `id` brings it back.",
      params: base.params,
      body: GitSelection,
      response: Discard,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params, body }) => edits.discard(base.folder(params), body),
    }),
    defineRoute({
      method: "POST",
      path: `${base.path}/git/discard/undo`,
      tag: base.tag,
      summary: `Bring back what a discard in the ${base.noun} threw away`,
      description:
        "Puts the discarded files back as they were, staged and unstaged parts alike, and drops the discard's ref. " +
        "409 (and nothing changed) when any of those files changed since the discard; 404 for an id the repository has no discard of. " +
        "Answers with the first page of the changes after it.",
      params: base.params,
      body: DiscardUndoBody,
      response: ChangeList,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params, body }) => edits.undoDiscard(base.folder(params), body.id),
    }),
    defineRoute({
      method: "POST",
      path: `${base.path}/git/commit`,
      tag: base.tag,
      summary: `Commit what is staged in the ${base.noun}`,
      description:
        "With the machine's own git identity, configuration and hooks; `output` is what git and the hooks wrote. " +
        "409 `{error}` with that output when a hook fails or there is nothing to commit, when HEAD is detached " +
        "(unless `allowDetached`), and when another process holds the index.lock.",
      params: base.params,
      body: CommitBody,
      response: Commit,
      successStatus: 201,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params, body }) => edits.commit(base.folder(params), body),
    }),
    defineRoute({
      method: "POST",
      path: `${base.path}/git/commit-message`,
      tag: base.tag,
      summary: `Write a commit message for what is staged in the ${base.noun}`,
      description:
        '`source: "agent"` (the default for a session) asks the session\'s agent, in a one-off ACP session of its own beside the ' +
        "conversation (started if it is not running; a turn that runs goes on undisturbed; nothing is added to the conversation, its " +
        `events or its transcript), for a message from the staged diff (its first ${DIFF_BUDGET_CHARS.toLocaleString("en")} characters, ` +
        "then the list of staged files); the agent may not act (its permission requests are rejected, writes and commands refused) and has " +
        `${AGENT_MESSAGE_TIMEOUT_MS / 1000} s. A code fence, quotes and a leading "Commit message:" are taken off its reply. ` +
        '`source: "summary"` (the default elsewhere, and what an agent that cannot answer falls back to, with `agentError` saying why) is made ' +
        "from the staged files: a first line naming each kind of change and its files (their counts when that would be long), then a line per " +
        "file with its status and line counts; renames are found. Nothing is changed. 409 when nothing is staged.",
      params: base.params,
      body: CommitMessageBody,
      response: CommitMessage,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params, body }) => reads.commitMessage(base.folder(params), base.author?.(params) ?? null, body?.source),
    }),
    defineRoute({
      method: "GET",
      path: `${base.path}/git/branches`,
      tag: base.tag,
      summary: `The local branches of the ${base.noun}'s repository`,
      description: "By name, each with the commit it points at, its upstream and how far ahead of and behind it it is (as last fetched).",
      params: base.params,
      response: BranchList,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params }) => reads.branches(base.folder(params)),
    }),
    defineRoute({
      method: "POST",
      path: `${base.path}/git/branches`,
      tag: base.tag,
      summary: `Make a branch in the ${base.noun}'s repository`,
      description:
        "At `from` (a branch, tag or commit; HEAD by default), not checked out and tracking nothing. 400 for a name git would not take, " +
        "404 for a `from` that names no commit, 409 when the branch exists.",
      params: base.params,
      body: NewBranch,
      response: Branch,
      successStatus: 201,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params, body }) => edits.createBranch(base.folder(params), body),
    }),
    defineRoute({
      method: "POST",
      path: `${base.path}/git/checkout`,
      tag: base.tag,
      summary: `Check out a branch in the ${base.noun}`,
      description:
        "A local branch, or a remote's branch of that name as a new local branch tracking it (404 when neither exists). " +
        "Nothing is forced: local changes git would overwrite make it 409 in git's words. Answers with the first page of the changes after it.",
      params: base.params,
      body: CheckoutBody,
      response: ChangeList,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params, body }) => edits.checkout(base.folder(params), body.branch),
    }),
    defineRoute({
      method: "POST",
      path: `${base.path}/git/push`,
      tag: base.tag,
      summary: `Push a branch of the ${base.noun}`,
      description:
        "A local branch (the current one by default) to the remote's branch of the same name, with the machine's own credentials; the remote is " +
        "the branch's own, else `origin`. `force` is only ever `--force-with-lease`. 404 for an unknown remote or branch; 409 `{error}` with the " +
        "remote's words when it rejects the push; 502 with git's words when the remote cannot be reached or refuses access.",
      params: base.params,
      body: PushBody,
      response: RemoteResult,
      moreErrors: REMOTE_UNREACHABLE,
      handler: ({ params, body }) => edits.push(base.folder(params), body),
    }),
    defineRoute({
      method: "POST",
      path: `${base.path}/git/pull`,
      tag: base.tag,
      summary: `Pull into the ${base.noun}'s current branch`,
      description:
        "From its upstream, or the `remote` and `branch` named; a fast-forward only unless `mode` is `merge` or `rebase`. 409 `{error}` in git's " +
        "words when it cannot (diverged, local changes in the way, a conflict: a merge or rebase that stops is undone); 502 when the remote cannot be reached.",
      params: base.params,
      body: PullBody,
      response: RemoteResult,
      moreErrors: REMOTE_UNREACHABLE,
      handler: ({ params, body }) => edits.pull(base.folder(params), body),
    }),
    defineRoute({
      method: "POST",
      path: `${base.path}/git/pull-requests`,
      tag: base.tag,
      summary: `Open a pull request of the ${base.noun}'s current branch`,
      description:
        "Through `gh` (GitHub's CLI) where the machine has it installed and signed in, else GitHub's REST API with the token stored by " +
        "`PUT /v1/github/token`; the branch must have been pushed. 409 `{error}` when there is neither, on a detached HEAD, and with " +
        "GitHub's words when it refuses (one exists already).",
      params: base.params,
      body: NewPullRequest,
      response: PullRequest,
      successStatus: 201,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params, body }) => pullRequests.create(base.folder(params), body),
    }),
    defineRoute({
      method: "GET",
      path: `${base.path}/git/pull-requests/:number`,
      tag: base.tag,
      summary: `A pull request of the ${base.noun}'s repository, as GitHub has it now`,
      description: "Through `gh` or the REST API, as for opening one; 404 when GitHub has no pull request of that number.",
      params: Type.Composite([base.params, PullRequestNumber]),
      response: PullRequest,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params }) => {
        const named = params as unknown as Static<P> & Static<typeof PullRequestNumber>;
        return pullRequests.get(base.folder(named), Number(named.number));
      },
    }),
    defineRoute({
      method: "GET",
      path: `${base.path}/git/log`,
      tag: base.tag,
      summary: `The history of the ${base.noun}'s HEAD`,
      description:
        "Newest first, as `git log` lists it; `limit` commits a page (50 by default) and `next` as the following page's `cursor`, " +
        "which keeps to the commit the first page started at. Empty before the first commit.",
      params: base.params,
      query: LogQuery,
      response: CommitLog,
      moreErrors: REPOSITORY_STATE,
      handler: ({ params, query }) => reads.log(base.folder(params), query),
    }),
  ];
}
