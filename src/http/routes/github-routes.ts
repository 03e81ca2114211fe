import { Type } from "@sinclair/typebox";
import type { GitHubToken } from "../../git/github-token.ts";
import { GitHubTokenBody, GitHubTokenState } from "../../schemas/git.ts";
import { defineRoute } from "../route.ts";

const WHY = "Pull requests go through the machine's `gh` when it is installed and signed in; otherwise through GitHub's REST API with this token.";

/** The GitHub token pull requests use where `gh` is not there: stored, cleared, and whether there is one (never the token). */
export function gitHubRoutes(token: GitHubToken) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/github/token",
      tag: "projects",
      summary: "Whether a GitHub token is stored",
      description: WHY,
      response: GitHubTokenState,
      handler: () => ({ stored: token.stored }),
    }),
    defineRoute({
      method: "PUT",
      path: "/v1/github/token",
      tag: "projects",
      summary: "Store the GitHub token",
      description: `${WHY} Kept in the data dir, 0600; never returned, logged or put in an event.`,
      body: GitHubTokenBody,
      response: Type.Null(),
      successStatus: 204,
      handler: ({ body }) => {
        token.set(body.token);
        return new Response(null, { status: 204 });
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/github/token",
      tag: "projects",
      summary: "Forget the GitHub token",
      response: Type.Null(),
      successStatus: 204,
      handler: () => {
        token.clear();
        return new Response(null, { status: 204 });
      },
    }),
  ];
}
