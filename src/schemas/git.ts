import { Type, type Static } from "@sinclair/typebox";

export const HunkName = Type.Object(
  {
    path: Type.String({ minLength: 1, description: "A modified file as the change list names it." }),
    header: Type.String({
      minLength: 1,
      description: "The hunk's `@@ -a,b +c,d @@` line as the file's diff (`…/changes/diff`) writes it; what follows the second `@@` is ignored.",
    }),
  },
  { $id: "HunkName" },
);
export type HunkName = Static<typeof HunkName>;

export const GitSelection = Type.Object(
  {
    paths: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000, description: "Whole files, as the change list names them." })),
    hunks: Type.Optional(Type.Array(HunkName, { maxItems: 1000, description: "Parts of modified files." })),
  },
  { $id: "GitSelection" },
);
export type GitSelection = Static<typeof GitSelection>;

export const Discard = Type.Object(
  {
    id: Type.String({ description: "What `…/git/discard/undo` takes to bring the discarded changes back." }),
    ref: Type.String({ description: "The ref (`refs/atrium/discarded/<id>`) whose commit keeps the files as they were, index and working tree." }),
    paths: Type.Array(Type.String(), { description: "The files the discard touched, by path." }),
  },
  { $id: "Discard" },
);
export type Discard = Static<typeof Discard>;

export const DiscardUndoBody = Type.Object({ id: Type.String({ minLength: 1, description: "A discard's `id`." }) });

export const CommitBody = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 100_000, description: "The commit message, as `git commit -F -` reads it." }),
  amend: Type.Optional(Type.Boolean({ description: "Replace HEAD's commit (`--amend`)." })),
  noVerify: Type.Optional(Type.Boolean({ description: "Skip the pre-commit and commit-msg hooks (`--no-verify`)." })),
  allowDetached: Type.Optional(Type.Boolean({ description: "Commit on a detached HEAD (refused otherwise: the commit would belong to no branch)." })),
});
export type CommitBody = Static<typeof CommitBody>;

export const Commit = Type.Object(
  {
    sha: Type.String({ description: "The new commit." }),
    branch: Type.Union([Type.String(), Type.Null()], { description: "The branch it is on; null on a detached HEAD." }),
    output: Type.String({ description: "What git and the hooks wrote (stdout, then stderr), cut at 64 KiB." }),
  },
  { $id: "Commit" },
);
export type Commit = Static<typeof Commit>;

export const Branch = Type.Object(
  {
    name: Type.String(),
    head: Type.String({ description: "The commit it points at." }),
    current: Type.Boolean({ description: "Checked out in this folder." }),
    upstream: Type.Union([Type.String(), Type.Null()], { description: "The remote branch it tracks (`origin/main`); null for none." }),
    ahead: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "Commits it has that its upstream lacks; null without an upstream, or when the upstream is gone.",
    }),
    behind: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  },
  { $id: "Branch" },
);
export type Branch = Static<typeof Branch>;

export const BranchList = Type.Object(
  {
    current: Type.Union([Type.String(), Type.Null()], { description: "The branch checked out; null on a detached HEAD or before the first commit." }),
    head: Type.Union([Type.String(), Type.Null()], { description: "HEAD's commit; null before the first commit." }),
    branches: Type.Array(Branch, { description: "The local branches, by name." }),
  },
  { $id: "BranchList" },
);
export type BranchList = Static<typeof BranchList>;

export const NewBranch = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 250, description: "A branch name git takes (`git check-ref-format --branch`)." }),
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 250, description: "Where it starts: a branch, tag or commit; HEAD by default." })),
});
export type NewBranch = Static<typeof NewBranch>;

export const CheckoutBody = Type.Object({
  branch: Type.String({ minLength: 1, maxLength: 250, description: "A local branch, or a remote's branch of that name (a local one tracking it is made)." }),
});

export const LogEntry = Type.Object(
  {
    sha: Type.String(),
    parents: Type.Array(Type.String()),
    authorName: Type.String(),
    authorEmail: Type.String(),
    authoredAt: Type.String({ format: "date-time" }),
    subject: Type.String({ description: "The message's first line." }),
  },
  { $id: "LogEntry" },
);
export type LogEntry = Static<typeof LogEntry>;

export const CommitLog = Type.Object(
  {
    head: Type.Union([Type.String(), Type.Null()], { description: "The commit the log starts at; later pages keep to it." }),
    commits: Type.Array(LogEntry, { description: "Newest first, as `git log` lists them." }),
    next: Type.Union([Type.String(), Type.Null()], { description: "The `cursor` of the next page; null on the last." }),
  },
  { $id: "CommitLog" },
);
export type CommitLog = Static<typeof CommitLog>;

export const LogQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: "Commits per page (50 by default)." })),
  cursor: Type.Optional(Type.String({ minLength: 1 })),
});

export const PushBody = Type.Object({
  remote: Type.Optional(Type.String({ minLength: 1, maxLength: 250, description: "A configured remote; the branch's own remote, else `origin`, by default." })),
  branch: Type.Optional(
    Type.String({ minLength: 1, maxLength: 250, description: "A local branch, pushed to the remote's branch of the same name; the current one by default." }),
  ),
  setUpstream: Type.Optional(Type.Boolean({ description: "Make the remote's branch the local one's upstream (`--set-upstream`)." })),
  force: Type.Optional(
    Type.Boolean({ description: "Replace the remote's branch, only if it is still where this repository last saw it (`--force-with-lease`)." }),
  ),
});
export type PushBody = Static<typeof PushBody>;

export const PullBody = Type.Object({
  remote: Type.Optional(
    Type.String({ minLength: 1, maxLength: 250, description: "With `branch`: where to pull from; the current branch's upstream by default." }),
  ),
  branch: Type.Optional(Type.String({ minLength: 1, maxLength: 250 })),
  mode: Type.Optional(
    Type.Union([Type.Literal("ff-only"), Type.Literal("merge"), Type.Literal("rebase")], {
      description: "`ff-only` (the default): only a fast-forward; `merge` or `rebase` when the branches have diverged.",
    }),
  ),
});
export type PullBody = Static<typeof PullBody>;

export const RemoteResult = Type.Object(
  {
    remote: Type.String(),
    branch: Type.String(),
    head: Type.String({ description: "The local branch's commit after it." }),
    output: Type.String({ description: "What git and the remote wrote." }),
  },
  { $id: "RemoteResult" },
);
export type RemoteResult = Static<typeof RemoteResult>;

export const MergeBody = Type.Object({
  into: Type.Optional(Type.String({ minLength: 1, maxLength: 250, description: "The local branch to land on; the worktree's base branch by default." })),
  strategy: Type.Union([Type.Literal("merge"), Type.Literal("squash"), Type.Literal("rebase")], {
    description: "`merge`: a merge commit (`--no-ff`); `squash`: one commit of all the branch's changes; `rebase`: the branch's commits replayed on top.",
  }),
  message: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: "The merge or squash commit's message; git's default otherwise." })),
  removeWorktree: Type.Optional(
    Type.Boolean({ description: "Remove the session's worktree (and its branch) once landed; refused while it has uncommitted changes." }),
  ),
});
export type MergeBody = Static<typeof MergeBody>;

export const MergeResult = Type.Object(
  {
    into: Type.String(),
    branch: Type.String({ description: "The session's branch that landed." }),
    strategy: Type.String(),
    head: Type.String({ description: "`into`'s commit after it." }),
    worktreeRemoved: Type.Boolean(),
  },
  { $id: "MergeResult" },
);
export type MergeResult = Static<typeof MergeResult>;

export const CommitMessageBody = Type.Object({
  source: Type.Optional(
    Type.Union([Type.Literal("agent"), Type.Literal("summary")], {
      description:
        "`agent`: ask the session's agent (the default for a session); `summary`: make it from the staged files (the default for a location or a worktree, which have no agent).",
    }),
  ),
});
export type CommitMessageBody = Static<typeof CommitMessageBody>;

export const CommitMessage = Type.Object(
  {
    message: Type.String({ description: "A first line, a blank line, then a body; the client may edit it before committing." }),
    source: Type.Union([Type.Literal("agent"), Type.Literal("summary")], {
      description: "Who wrote it: `agent`, the session's agent from the staged diff; `summary`, made from the staged files' names, statuses and line counts.",
    }),
    agentError: Type.Optional(
      Type.String({
        description:
          "Why the agent's message was wanted but this is the summary: no agent here (a location or a worktree), it could not start, failed, gave no message or did not answer in time.",
      }),
    ),
  },
  { $id: "CommitMessage" },
);
export type CommitMessage = Static<typeof CommitMessage>;

export const GitOperation = Type.Union([
  Type.Literal("stage"),
  Type.Literal("unstage"),
  Type.Literal("discard"),
  Type.Literal("discard.undo"),
  Type.Literal("commit"),
  Type.Literal("branch"),
  Type.Literal("checkout"),
  Type.Literal("push"),
  Type.Literal("pull"),
  Type.Literal("merge"),
]);

export const GitEvents = {
  /** Subject: the repository's root folder. Appended after each git operation a client asked for. */
  "git.changed": Type.Object({
    repositoryRoot: Type.String(),
    operation: GitOperation,
    branch: Type.Union([Type.String(), Type.Null()], { description: "Checked out after it; null on a detached HEAD." }),
    head: Type.Union([Type.String(), Type.Null()], { description: "HEAD's commit after it; null before the first commit." }),
    changeCount: Type.Integer({ minimum: 0, description: "Files changed against HEAD after it, untracked ones included (read them with `…/changes`)." }),
  }),
  /**
   * Subject: the repository's root folder. What a push or pull a client asked for is doing, as git tells it
   * (`--progress`): a few a second at most, each phase's first line and its 100 % line among them.
   */
  "git.progress": Type.Object({
    repositoryRoot: Type.String(),
    operation: Type.Union([Type.Literal("push"), Type.Literal("pull")]),
    phase: Type.String({
      description: "git's words for it: `Writing objects`, `Receiving objects`, `remote: Counting objects`, or a line the remote wrote (`remote: …`).",
    }),
    percent: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], {
      description: "How far the phase is; null for a line of the remote's without one.",
    }),
  }),
};
export type GitChanged = Static<(typeof GitEvents)["git.changed"]>;
export type GitProgress = Static<(typeof GitEvents)["git.progress"]>;

export const NewPullRequest = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 256 }),
  body: Type.Optional(Type.String({ maxLength: 65_536 })),
  base: Type.Optional(
    Type.String({ minLength: 1, maxLength: 250, description: "The branch to merge into; the repository's default branch on GitHub otherwise." }),
  ),
  draft: Type.Optional(Type.Boolean()),
});
export type NewPullRequest = Static<typeof NewPullRequest>;

export const PullRequest = Type.Object(
  {
    number: Type.Integer({ minimum: 1 }),
    url: Type.String(),
    state: Type.Union([Type.Literal("open"), Type.Literal("closed"), Type.Literal("merged")]),
    title: Type.String(),
    headBranch: Type.String(),
    baseBranch: Type.String(),
    draft: Type.Boolean(),
    review: Type.Union([Type.Literal("approved"), Type.Literal("changes_requested"), Type.Literal("review_required"), Type.Null()], {
      description:
        "Where its review stands: GitHub's review decision through `gh`; through the REST API, each reviewer's latest review (never `review_required`). null: none asked for or given.",
    }),
    checks: Type.Object(
      {
        passed: Type.Integer({ minimum: 0 }),
        failed: Type.Integer({ minimum: 0 }),
        pending: Type.Integer({ minimum: 0 }),
      },
      { description: "Its head commit's checks and commit statuses, counted by outcome (skipped and neutral ones pass)." },
    ),
  },
  { $id: "PullRequest" },
);
export type PullRequest = Static<typeof PullRequest>;

export const GitHubTokenBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 1000, description: "A GitHub token that may open pull requests; kept 0600, never returned." }),
});

export const GitHubTokenState = Type.Object({ stored: Type.Boolean() }, { $id: "GitHubTokenState" });
