import { ConflictError, NotFoundError } from "../errors.ts";
import { runCommand } from "../process/run-command.ts";
import type { NewPullRequest, PullRequest } from "../schemas/git.ts";
import type { Repository, WorkingTreeChanges } from "./working-tree-changes.ts";

const FIELDS = "number,url,state,title,headRefName,baseRefName,isDraft";
const GH_TIMEOUT_MS = 60_000;

interface GhPullRequest {
  number: number;
  url: string;
  state: string;
  title: string;
  headRefName: string;
  baseRefName: string;
  isDraft: boolean;
}

/**
 * Pull requests through GitHub's own CLI, `gh`, as the machine has it installed and signed in (its
 * configuration, its account). `env` is where it is looked for (PATH) and what it runs with (HOME).
 */
export class PullRequests {
  constructor(
    private readonly changes: WorkingTreeChanges,
    private readonly env: Record<string, string | undefined>,
  ) {}

  /** Opens a pull request of the folder's current branch, which must have been pushed. */
  async create(folder: string, body: NewPullRequest): Promise<PullRequest> {
    const repo = await this.changes.repository(folder);
    if (!repo.branch) throw new ConflictError("HEAD is detached: check out the branch to open a pull request of");
    const args = ["pr", "create", "--head", repo.branch, "--title", body.title, "--body", body.body ?? ""];
    if (body.base) args.push("--base", body.base);
    if (body.draft) args.push("--draft");
    const created = await this.gh(repo, args);
    if (created.code !== 0) throw new ConflictError(`gh pr create failed: ${said(created)}`);
    const url = created.stdout.trim().split("\n").at(-1) ?? "";
    return this.view(repo, url);
  }

  /** A pull request of the folder's repository by number, as GitHub has it now. */
  async get(folder: string, pullRequest: number): Promise<PullRequest> {
    return this.view(await this.changes.repository(folder), String(pullRequest));
  }

  private async view(repo: Repository, pullRequest: string): Promise<PullRequest> {
    const viewed = await this.gh(repo, ["pr", "view", pullRequest, "--json", FIELDS]);
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
    };
  }

  /** Runs `gh` in the repository, after checking it is installed and signed in (409 otherwise, saying which). */
  private async gh(repo: Repository, args: string[]) {
    const gh = Bun.which("gh", { PATH: this.env.PATH ?? "" });
    if (!gh) throw new ConflictError("gh (GitHub's CLI) is not installed on this machine: install it and run `gh auth login` there");
    const env = { ...this.env, GH_PROMPT_DISABLED: "1", GH_NO_UPDATE_NOTIFIER: "1", NO_COLOR: "1", GIT_TERMINAL_PROMPT: "0" };
    const status = await runCommand([gh, "auth", "status"], { cwd: repo.root, env, timeoutMs: GH_TIMEOUT_MS });
    if (status.code !== 0) throw new ConflictError(`gh is not signed in to GitHub on this machine: run \`gh auth login\` there (${said(status)})`);
    return runCommand([gh, ...args], { cwd: repo.root, env, timeoutMs: GH_TIMEOUT_MS });
  }
}

const said = (result: { stdout: string; stderr: string }) => result.stderr.trim() || result.stdout.trim();
