import { Type } from "@sinclair/typebox";
import { BackgroundTaskOutput, Goal, QueuedPrompt, Session, SessionConfig, SessionDetail, SessionListItem, UsageLimits } from "../../schemas/sessions.ts";
import {
  AnswerQuestionBody,
  CreateSessionBody,
  DeleteSessionQuery,
  EditPromptBody,
  ForkSessionBody,
  SendPromptBody,
  SessionDetailQuery,
  SessionEventsQuery,
  SessionListQuery,
  SetConfigBody,
  SetGoalBody,
  UpdateSessionBody,
} from "../../schemas/session-requests.ts";
import { TranscriptDetailsPage, TranscriptDetailsQuery } from "../../schemas/transcript.ts";
import { BEHIND_HORIZON, EventRecord } from "../../schemas/events.ts";
import type { SessionService } from "../../sessions/session-service.ts";
import { pageResponse } from "../paging.ts";
import { defineRoute } from "../route.ts";

export const SessionParams = Type.Object({ id: Type.String({ minLength: 1 }) });
const PromptParams = Type.Object({ id: Type.String({ minLength: 1 }), promptId: Type.String({ minLength: 1 }) });
const QuestionParams = Type.Object({ id: Type.String({ minLength: 1 }), questionId: Type.String({ minLength: 1 }) });
const ItemParams = Type.Object({ id: Type.String({ minLength: 1 }), itemId: Type.String({ minLength: 1 }) });
const TaskParams = Type.Object({ id: Type.String({ minLength: 1 }), terminalKey: Type.String({ minLength: 1 }) });
const Deleted = Type.Object({ id: Type.String() });

export function sessionRoutes(sessions: SessionService) {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/sessions",
      tag: "sessions",
      summary: "Create a session of a harness in a project",
      description:
        "The agent starts with the first prompt. `runLocation` overrides the project's defaultRunLocation (`worktree` makes a " +
        "git worktree on a new branch); `configSelections` are set on the agent when it starts (those it refuses are kept in " +
        "unavailableConfigSelections); the harness account is the harness's active one unless named.",
      body: CreateSessionBody,
      response: Session,
      successStatus: 201,
      handler: ({ body }) => sessions.create(body),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/sessions",
      tag: "sessions",
      summary: "Sessions, most recently updated first; filter by project, harness and state, or find them by title, project name or conversation (`q`)",
      description:
        'Paged: `limit` (50 by default, at most 200); the next page is the `Link: <…>; rel="next"` header. Archived sessions are ' +
        "left out; `archived=true` lists only them. With `q`: sessions whose title or project name holds the text come first " +
        "(newest first), then those whose prompts or finished replies hold every word, best bm25 match first; each whose " +
        "conversation matched has `match` (the item, a plain-text snippet and the matched words' offsets in it).",
      query: SessionListQuery,
      response: Type.Array(SessionListItem),
      paged: true,
      handler: ({ query, request }) => pageResponse(sessions.listing.page(query), request),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/sessions/:id",
      tag: "sessions",
      summary: "A session with a page of its conversation (newest first pages, oldest first within a page)",
      description: "Page back with before=nextBefore while hasMore. eventCursor is the event position the snapshot was read at.",
      params: SessionParams,
      query: SessionDetailQuery,
      response: SessionDetail,
      handler: ({ params, query }) => sessions.detail(params.id, query.before, query.limit),
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/sessions/:id",
      tag: "sessions",
      summary: "Rename, relabel, archive or restore (`archived`), or mark attention as seen",
      description:
        "A title given here stays: the agent's own title (ACP session_info_update) and the first prompt's no longer replace it " +
        "(`title: null` gives that back). An archived session still opens and takes prompts; `session.updated` tells the change.",
      params: SessionParams,
      body: UpdateSessionBody,
      response: Session,
      handler: ({ params, body }) => sessions.update(params.id, body),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/sessions/:id",
      tag: "sessions",
      summary: "Stop the agent and delete the session (its worktree too, unless keepWorktree=true)",
      params: SessionParams,
      query: DeleteSessionQuery,
      response: Deleted,
      handler: ({ params, query }) => sessions.remove(params.id, query.keepWorktree === "true"),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/fork",
      tag: "sessions",
      summary: "Fork the session at a message, or continue it with another agent (`harnessId`)",
      description:
        "A new session (`parentSessionId`: this one) whose conversation is a copy of this one's up to and including `itemId` " +
        "(all of it when absent); this session is not changed. Its agent starts with the first prompt: the agent's own " +
        "`session/fork` carries the conversation where it offers it (the whole conversation, the same harness), else the " +
        "conversation is handed over with that prompt, within the handoff budget (docs/api.md). 400: no such item here; " +
        "409: a reply up to `itemId` is still being written, or the harness cannot run sessions.",
      params: SessionParams,
      body: ForkSessionBody,
      response: Session,
      successStatus: 201,
      handler: ({ params, body }) => sessions.forks.fork(params.id, body),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/prompts",
      tag: "sessions",
      summary: "Send a prompt: it is queued, and starts at once when no turn runs",
      description: "Returns the QueuedPrompt; `session.prompt.started` tells when it runs. The same clientId again returns the same prompt.",
      params: SessionParams,
      body: SendPromptBody,
      response: QueuedPrompt,
      successStatus: 201,
      handler: ({ params, body }) => sessions.prompts.enqueue(params.id, body).prompt,
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/sessions/:id/prompts/:promptId",
      tag: "sessions",
      summary: "Edit a prompt that is still queued (404 once it has started)",
      params: PromptParams,
      body: EditPromptBody,
      response: QueuedPrompt,
      handler: ({ params, body }) => sessions.prompts.editPrompt(params.id, params.promptId, body.text),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/sessions/:id/prompts/:promptId",
      tag: "sessions",
      summary: "Drop a prompt that is still queued",
      params: PromptParams,
      response: Deleted,
      handler: ({ params }) => sessions.prompts.dropPrompt(params.id, params.promptId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/cancel",
      tag: "sessions",
      summary: "Cancel the turn in flight (409 when none runs); queued prompts stay queued",
      params: SessionParams,
      response: Session,
      handler: ({ params }) => sessions.cancel(params.id),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/questions/:questionId/answer",
      tag: "sessions",
      summary: "Answer the pending question: option ids per question, text where allowsOther",
      description: "A wrong answer is 400 and the question stays open. Secret answers go to the agent only; they are never stored or logged.",
      params: QuestionParams,
      body: AnswerQuestionBody,
      response: Session,
      handler: ({ params, body }) => sessions.answer(params.id, params.questionId, body),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/questions/:questionId/dismiss",
      tag: "sessions",
      summary: "Decline to answer: the agent is told the question was cancelled",
      params: QuestionParams,
      response: Session,
      handler: ({ params }) => sessions.dismissQuestion(params.id, params.questionId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/plan/approve",
      tag: "sessions",
      summary: "Approve the plan the agent wants to leave plan mode with",
      params: SessionParams,
      response: Session,
      handler: ({ params }) => sessions.approvePlan(params.id),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/plan/reject",
      tag: "sessions",
      summary: "Reject the plan: the turn is cancelled and the agent goes back to plan mode",
      params: SessionParams,
      response: Session,
      handler: ({ params }) => sessions.rejectPlan(params.id),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/config",
      tag: "sessions",
      summary: "Set one of the agent's config options (model, mode, …) and return them all",
      params: SessionParams,
      body: SetConfigBody,
      response: SessionConfig,
      handler: ({ params, body }) => sessions.setConfig(params.id, body.configId, body.value),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/sessions/:id/transcript/:itemId/details",
      tag: "sessions",
      summary: "A page of a reply's details: its thoughts and tool calls, in the order they appeared",
      description:
        "`after` takes nextAfter (newer entries; still a cursor while the reply is generating) or previousBefore (older ones) of an " +
        "earlier page, or `latest` for the newest page. An entry changed in place (a tool call finishing) keeps its position and " +
        "gets a new revision; `session.transcript` events name what changed.",
      params: ItemParams,
      query: TranscriptDetailsQuery,
      response: TranscriptDetailsPage,
      handler: ({ params, query }) => sessions.transcriptDetails(params.id, params.itemId, query.after, query.limit),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/sessions/:id/tasks/:terminalKey",
      tag: "sessions",
      summary: "A background task (a command the agent runs) and its output so far",
      description: "Tasks are listed in the session detail's backgroundTasks until the agent releases them; they end with the agent.",
      params: TaskParams,
      response: BackgroundTaskOutput,
      handler: ({ params }) => sessions.taskOutput(params.id, params.terminalKey),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/sessions/:id/usage-limits",
      tag: "sessions",
      summary: "The rate-limit windows and credits of the session's harness account",
      description:
        "Read from what the harness keeps on disk (Codex logs them in its session files; fetchedAt is when it did). Otherwise " +
        "`state` is `unavailable` and `detail` says why.",
      params: SessionParams,
      response: UsageLimits,
      handler: ({ params }) => sessions.usageLimits(params.id),
    }),
    defineRoute({
      method: "PUT",
      path: "/v1/sessions/:id/goal",
      tag: "sessions",
      summary: "Set the session's goal and token budget",
      description:
        "Tokens and seconds of turns count against it. When the budget is spent the turn is cancelled, the queue pauses and the " +
        "session's status says so. The same objective again keeps the counts (raise the budget to go on); a new one starts from zero.",
      params: SessionParams,
      body: SetGoalBody,
      response: Goal,
      handler: ({ params, body }) => sessions.setGoal(params.id, body.objective, body.tokenBudget ?? null),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/sessions/:id/goal",
      tag: "sessions",
      summary: "Remove the goal (a queue its budget paused goes on)",
      params: SessionParams,
      response: Session,
      handler: ({ params }) => sessions.clearGoal(params.id),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/sessions/:id/events",
      tag: "sessions",
      summary: "The session's events, in its own gap-free sequence (`id`), after `after`",
      description:
        "Without `after` (or with 0), the oldest events still kept. An `after` behind what compaction removed is refused 410: re-read the session instead.",
      params: SessionParams,
      query: SessionEventsQuery,
      response: Type.Array(EventRecord),
      moreErrors: BEHIND_HORIZON,
      handler: ({ params, query }) => sessions.events(params.id, query.after, query.limit),
    }),
  ];
}
