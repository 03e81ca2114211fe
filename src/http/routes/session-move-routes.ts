import type { MachineService } from "../../machines/machine-service.ts";
import type { SessionMoves } from "../../sessions/session-moves.ts";
import { Session } from "../../schemas/sessions.ts";
import { MoveParams, MovePackage, MoveSessionBody, MoveState } from "../../schemas/session-moves.ts";
import { bearerToken } from "../auth-guard.ts";
import { defineRoute } from "../route.ts";
import { SessionParams } from "./session-routes.ts";

const PEER_ONLY = { "403": "The token is not a paired machine's." };
/** A session's copy: its conversation, and a working tree's bundle and binary diff (base64 grows them by a third). */
const MOVE_BODY_LIMIT_BYTES = 512 * 1024 * 1024;

/** A session's move to a paired machine, and the calls between the two machines that make it. */
export function sessionMoveRoutes(moves: SessionMoves, machines: MachineService) {
  const peerOf = (request: Request) => machines.machineOf(bearerToken(request.headers.get("authorization")));
  return [
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/move",
      tag: "sessions",
      summary: "Move the session to a paired machine: it continues there with its conversation, queue, goal, branch and uncommitted changes",
      description:
        "Two-phase: the other machine stores a copy (not yet live), then this one decides and the session here ends with " +
        "`move.state` `moved` and a link to the new one, which goes live. The answer is this session, moved. 404 when the " +
        "machine is not paired; 409 while a turn runs, while it moves, or when the project has no location on that machine " +
        "(the error says what to add); 502 when the other machine cannot be reached (the session stays here, live).",
      moreErrors: { "502": "The other machine could not be reached or failed; nothing moved." },
      params: SessionParams,
      body: MoveSessionBody,
      response: Session,
      handler: ({ params, body }) => moves.move(params.id, body.machineId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/machines/peer/moves",
      tag: "machines",
      summary: "Between machines: a session's copy arrives and is stored staged (not live) until its source decides",
      description: "Repeated with the same moveId, it answers the state recorded. 409 when the project has no location here.",
      moreErrors: PEER_ONLY,
      body: MovePackage,
      bodyLimitBytes: MOVE_BODY_LIMIT_BYTES,
      response: MoveState,
      handler: ({ body, request }) => moves.stage(peerOf(request), body),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/machines/peer/moves/:moveId",
      tag: "machines",
      summary: "Between machines: this side's record of a move (a target asks its source for the decision)",
      moreErrors: PEER_ONLY,
      params: MoveParams,
      response: MoveState,
      handler: ({ params, request }) => moves.stateOf(peerOf(request), params.moveId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/machines/peer/moves/:moveId/confirm",
      tag: "machines",
      summary: "Between machines: the source decided; the staged session goes live here",
      moreErrors: PEER_ONLY,
      params: MoveParams,
      response: MoveState,
      handler: ({ params, request }) => moves.confirmed(peerOf(request), params.moveId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/machines/peer/moves/:moveId/abort",
      tag: "machines",
      summary: "Between machines: the source gave up before deciding; the staged copy and its worktree go",
      moreErrors: PEER_ONLY,
      params: MoveParams,
      response: MoveState,
      handler: ({ params, request }) => moves.aborted(peerOf(request), params.moveId),
    }),
  ];
}
