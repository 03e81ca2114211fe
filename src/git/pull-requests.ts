import { ConflictError, NotFoundError } from "../errors.ts";
import { runCommand } from "../process/run-command.ts";
import type { NewPullRequest, PullRequest } from "../schemas/git.ts";
import { gitOutput } from "./git-runner.ts";
import { GitHubRest, gitHubRepositoryOf } from "./github-rest.ts";
import { countChecks, reviewOf } from "./pull-request-state.ts";
import type { GitHubToken } from "./github-token.ts";
import type { Repository } from "./repository-info.ts";
import type { WorkingTreeChanges } from "./working-tree-changes.ts";

const FIELDS = "number,url,state,title,headRefName,baseRefName,isDraft,reviewDecision,statusCheckRollup";
const GH_TIMEOUT_MS = 60_000;

interface GhPullRequest {
  number: number;
  url: string;
  state: string;
  title: string;
  headRefName: string;
  baseRefName: string;
  isDraft: boolean;
  reviewDecision?: string | null;
  statusCheckRollup?: Parameters<typeof countChecks>[0] | null;
}

export interface PullRequestsDeps {
  changes: WorkingTreeChanges;
  /** Where `gh` is looked for (PATH) and what it runs with (HOME). */
  env: Record<string, string | undefined>;
  token: GitHubToken;
  /** GitHub's REST API, for a machine without a signed-in `gh`: https://api.github.com, or an Enterprise host's. */
  apiUrl: string;
}

type Gh = { run(args: string[]): ReturnType<typeof runCommand> };

/**
 * Pull requests through GitHub's own CLI, `gh`, as the machine has it installed and signed in (its
 * configuration, its account); where it is not, through GitHub's REST API with the token stored for it.
 */
export class PullRequests {
  constructor(private readonly deps: PullRequestsDeps) {}

  /** Opens a pull request of the folder's current branch, which must have been pushed. */
  async create(folder: string, body: NewPullRequest): Promise<PullRequest> {
    const repo = await this.deps.changes.repository(folder);
    if (!repo.branch) throw new ConflictError("HEAD is detached: check out the branch to open a pull request of");
    const gh = await this.gh(repo);
    if (!gh.ready) return (await this.rest(gh.why)).createPull(await this.gitHubRepository(repo), repo.branch, body);
    const args = ["pr", "create", "--head", repo.branch, "--title", body.title, "--body", body.body ?? ""];
    if (body.base) args.push("--base", body.base);
    if (body.draft) args.push("--draft");
    const created = await gh.run(args);
    if (created.code !== 0) throw new ConflictError(`gh pr create failed: ${said(created)}`);
    return this.view(gh, created.stdout.trim().split("\n").at(-1) ?? "");
  }

  /** A pull request of the folder's repository by number, as GitHub has it now. */
  async get(folder: string, pullRequest: number): Promise<PullRequest> {
    const repo = await this.deps.changes.repository(folder);
    const gh = await this.gh(repo);
    if (!gh.ready) return (await this.rest(gh.why)).pull(await this.gitHubRepository(repo), pullRequest);
    return this.view(gh, String(pullRequest));
  }

  private async view(gh: Gh, pullRequest: string): Promise<PullRequest> {
    const viewed = await gh.run(["pr", "view", pullRequest, "--json", FIELDS]);
    if (viewed.code !== 0) {
      const words = said(viewed);
      if (/no pull requests? found|could not resolve to a pullrequest/i.test(words)) throw new NotFoundError(`no pull request ${pullRequest}: ${words}`);
      throw new ConflictError(`gh pr view failed: ${words}`);
    }
    const found = JSON.parse(viewed.stdout) as GhPullRequest;
    const state = found.state.toLowerCase();
    return {
      number: found.number,
      url: found.url,
      state: state === "merged" || state === "closed" ? state : "open",
      title: found.title,
      headBranch: found.headRefName,
      baseBranch: found.baseRefName,
      draft: found.isDraft,
      review: reviewOf(found.reviewDecision),
      checks: countChecks(found.statusCheckRollup ?? []),
    };
  }

  /** `gh` in the repository when it is installed and signed in; otherwise why not. */
  private async gh(repo: Repository): Promise<({ ready: true } & Gh) | { ready: false; why: string }> {
    const gh = Bun.which("gh", { PATH: this.deps.env.PATH ?? "" });
    if (!gh) return { ready: false, why: "gh (GitHub's CLI) is not installed on this machine" };
    const env = { ...this.deps.env, GH_PROMPT_DISABLED: "1", GH_NO_UPDATE_NOTIFIER: "1", NO_COLOR: "1", GIT_TERMINAL_PROMPT: "0" };
    const run = (args: string[]) => runCommand([gh, ...args], { cwd: repo.root, env, timeoutMs: GH_TIMEOUT_MS });
    const status = await run(["auth", "status"]);
    if (status.code !== 0) return { ready: false, why: `gh is not signed in to GitHub on this machine (${said(status)})` };
    return { ready: true, run };
  }

  /** The REST API with the stored token; 409 saying what to do when there is none. */
  private async rest(whyNotGh: string): Promise<GitHubRest> {
    const token = this.deps.token.get();
    if (!token)
      throw new ConflictError(`${whyNotGh}, and no GitHub token is stored: run \`gh auth login\` on the machine, or store a token (PUT /v1/github/token)`);
    return new GitHubRest(this.deps.apiUrl, token);
  }

  /** The GitHub repository the current branch's remote (else `origin`) names. */
  private async gitHubRepository(repo: Repository): Promise<{ owner: string; name: string }> {
    const remote = (repo.branch && (await gitOutput(["config", "--get", `branch.${repo.branch}.remote`], { cwd: repo.root }))) || "origin";
    const url = await gitOutput(["remote", "get-url", remote], { cwd: repo.root });
    const found = url ? gitHubRepositoryOf(url) : undefined;
    if (!found) throw new ConflictError(`the remote ${remote} of ${repo.root} names no GitHub repository`);
    return found;
  }
}

const said = (result: { stdout: string; stderr: string }) => result.stderr.trim() || result.stdout.trim();
