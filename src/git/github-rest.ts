import { ConflictError, NotFoundError, UpstreamError } from "../errors.ts";
import type { NewPullRequest, PullRequest } from "../schemas/git.ts";
import { countChecks, reviewOfReviews } from "./pull-request-state.ts";

const REQUEST_TIMEOUT_MS = 30_000;

/** A repository on GitHub, as a remote's URL names it. */
export interface GitHubRepository {
  owner: string;
  name: string;
}

/** `https://github.com/octo/repo.git`, `git@github.com:octo/repo.git`, `ssh://git@host/octo/repo` → octo/repo. */
export function gitHubRepositoryOf(remoteUrl: string): GitHubRepository | undefined {
  const match = /[:/]([^/:]+)\/([^/]+?)(?:\.git)?\/?$/.exec(remoteUrl.trim());
  return match ? { owner: match[1]!, name: match[2]! } : undefined;
}

interface RestPull {
  number: number;
  html_url: string;
  state: string;
  merged?: boolean;
  merged_at?: string | null;
  title: string;
  draft?: boolean;
  head: { ref: string; sha: string };
  base: { ref: string };
}

/** GitHub's REST API (pulls) with a token, for a machine without `gh`. */
export class GitHubRest {
  constructor(
    private readonly apiUrl: string,
    private readonly token: string,
  ) {}

  async createPull(repository: GitHubRepository, head: string, body: NewPullRequest): Promise<PullRequest> {
    const base = body.base ?? (await this.call<{ default_branch: string }>("GET", this.path(repository, ""))).default_branch;
    const made = await this.call<RestPull>("POST", this.path(repository, "/pulls"), {
      title: body.title,
      body: body.body ?? "",
      head,
      base,
      draft: body.draft ?? false,
    });
    return this.withState(repository, made);
  }

  async pull(repository: GitHubRepository, number: number): Promise<PullRequest> {
    return this.withState(repository, await this.call<RestPull>("GET", this.path(repository, `/pulls/${number}`)));
  }

  /** The pull request with its reviews and its head commit's check runs and statuses, read beside it. */
  private async withState(repository: GitHubRepository, pull: RestPull): Promise<PullRequest> {
    const commit = this.path(repository, `/commits/${encodeURIComponent(pull.head.sha)}`);
    const [reviews, runs, statuses] = await Promise.all([
      this.call<{ user?: { login?: string }; state: string }[]>("GET", this.path(repository, `/pulls/${pull.number}/reviews`)),
      this.call<{ check_runs: { status: string; conclusion: string | null }[] }>("GET", `${commit}/check-runs`),
      this.call<{ statuses: { state: string }[] }>("GET", `${commit}/status`),
    ]);
    return { ...pullOf(pull), review: reviewOfReviews(reviews), checks: countChecks([...runs.check_runs, ...statuses.statuses]) };
  }

  private path(repository: GitHubRepository, rest: string): string {
    return `/repos/${encodeURIComponent(repository.owner)}/${encodeURIComponent(repository.name)}${rest}`;
  }

  /** One call; GitHub's own message (and its errors' messages) verbatim when it refuses: 404 as 404, the rest as 409, unreachable as 502. */
  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.apiUrl}${path}`, {
        method,
        headers: {
          accept: "application/vnd.github+json",
          authorization: `Bearer ${this.token}`,
          "x-github-api-version": "2022-11-28",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new UpstreamError(`GitHub's API at ${this.apiUrl} could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
    const answer = (await response.json().catch(() => ({}))) as { message?: string; errors?: Array<{ message?: string }> } & T;
    if (response.ok) return answer;
    const words = [answer.message, ...(answer.errors ?? []).map((error) => error.message)].filter(Boolean).join(": ") || `status ${response.status}`;
    if (response.status === 404) throw new NotFoundError(`GitHub: ${words}`);
    throw new ConflictError(`GitHub refused (${response.status}): ${words}`);
  }
}

function pullOf(pull: RestPull): Omit<PullRequest, "review" | "checks"> {
  return {
    number: pull.number,
    url: pull.html_url,
    state: pull.merged || pull.merged_at ? "merged" : pull.state === "closed" ? "closed" : "open",
    title: pull.title,
    headBranch: pull.head.ref,
    baseBranch: pull.base.ref,
    draft: pull.draft ?? false,
  };
}
