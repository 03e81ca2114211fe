import type { PullRequest } from "../schemas/git.ts";

export type Checks = PullRequest["checks"];
export type Review = PullRequest["review"];

/** How a check or a commit status ended, as GitHub words them in its GraphQL, REST and `gh` answers. */
export function outcomeOf(check: { status?: string | null; conclusion?: string | null; state?: string | null }): keyof Checks {
  const state = (check.state ?? "").toUpperCase();
  if (state) return state === "SUCCESS" ? "passed" : state === "PENDING" || state === "EXPECTED" ? "pending" : "failed";
  if ((check.status ?? "").toUpperCase() !== "COMPLETED") return "pending";
  return ["SUCCESS", "NEUTRAL", "SKIPPED"].includes((check.conclusion ?? "").toUpperCase()) ? "passed" : "failed";
}

/** The checks counted by outcome. */
export function countChecks(checks: readonly Parameters<typeof outcomeOf>[0][]): Checks {
  const counts: Checks = { passed: 0, failed: 0, pending: 0 };
  for (const check of checks) counts[outcomeOf(check)]++;
  return counts;
}

/** `gh`'s review decision (`APPROVED`, `CHANGES_REQUESTED`, `REVIEW_REQUIRED`, or empty). */
export function reviewOf(decision: string | null | undefined): Review {
  const lower = (decision ?? "").toLowerCase();
  return lower === "approved" || lower === "changes_requested" || lower === "review_required" ? lower : null;
}

/** The REST API's reviews, oldest first: each reviewer's latest approval or request for changes decides. */
export function reviewOfReviews(reviews: readonly { user?: { login?: string } | null; state: string }[]): Review {
  const latest = new Map<string, string>();
  for (const review of reviews) if (review.state === "APPROVED" || review.state === "CHANGES_REQUESTED") latest.set(review.user?.login ?? "", review.state);
  const states = [...latest.values()];
  return states.includes("CHANGES_REQUESTED") ? "changes_requested" : states.includes("APPROVED") ? "approved" : null;
}
