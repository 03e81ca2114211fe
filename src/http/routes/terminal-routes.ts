import { Type } from "@sinclair/typebox";
import type { AccessTokens } from "../../auth/access-tokens.ts";
import { revocableAuthorization } from "../../auth/revocation-watch.ts";
import { CreateTerminalBody, ResizeTerminalBody, PtyTerminal, PtyTerminalList, TerminalListQuery, TerminalTicket } from "../../schemas/terminals.ts";
import type { TerminalLogs } from "../../harness/terminal-logs.ts";
import { Terminal as CommandOutput } from "../../schemas/harnesses.ts";
import type { TerminalService } from "../../terminals/terminal-service.ts";
import type { TicketHolder } from "../../terminals/terminal-tickets.ts";
import { bearerToken } from "../auth-guard.ts";
import { HttpError, unauthorized } from "../http-error.ts";
import { pageResponse } from "../paging.ts";
import { defineRoute } from "../route.ts";

// `terminalId`, as the route of commands' output names it: the router takes one name per place in a path.
const TerminalParams = Type.Object({ terminalId: Type.String({ minLength: 1 }) });
const SocketQuery = Type.Object({
  ticket: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: "A ticket from `POST /v1/terminals/{id}/tickets`, when there is no Authorization header." }),
  ),
});

/** The request's bearer token, when it is valid: what a ticket or socket it opens checks again while it lasts. */
function tokenHolder(request: Request, tokens: AccessTokens): TicketHolder | undefined {
  const token = bearerToken(request.headers.get("authorization"));
  if (token === undefined) return undefined;
  const identity = tokens.verify(token);
  return identity === null ? undefined : { authorization: revocableAuthorization(tokens, token, identity.name) };
}

const REFUSED_BEYOND_LOOPBACK = "Refused while the server listens beyond loopback without TLS, unless config.json says `terminalsOverPlainHttp: true`.";

export function terminalRoutes(terminals: TerminalService, commandOutputs: TerminalLogs, tokens: AccessTokens) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/terminals",
      tag: "terminals",
      summary: "Terminals, oldest first: running ones, and exited ones for 10 minutes (the last 64)",
      description: 'Paged: `limit` (50 by default, at most 200); the next page is the `Link: <…>; rel="next"` header.',
      query: TerminalListQuery,
      response: PtyTerminalList,
      paged: true,
      handler: ({ query, request }) => pageResponse(terminals.list(query), request),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/terminals",
      tag: "terminals",
      summary: "Start a shell (or a command through it) on a pseudo-terminal in a project's folder",
      description:
        "The shell is `$SHELL` (else `/bin/sh`) with the server's environment and `TERM=xterm-256color`, in the project's first " +
        "location, or the location, worktree or session's folder named (one of them). `command` runs `$SHELL -c <command>` instead " +
        "of an interactive shell. It runs with the rights of the user the server runs as. Past config.json's `maxTerminals` (16) " +
        "running at once: 409.",
      body: CreateTerminalBody,
      response: PtyTerminal,
      successStatus: 201,
      moreErrors: { "403": REFUSED_BEYOND_LOOPBACK },
      handler: ({ body }) => terminals.create(body),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/terminals/:terminalId",
      tag: "terminals",
      summary: "One terminal: a shell on a PTY (PtyTerminal), or the output of a command the server ran, an install or update (Terminal)",
      params: TerminalParams,
      response: Type.Union([PtyTerminal, CommandOutput]),
      handler: ({ params }) => (terminals.has(params.terminalId) ? terminals.get(params.terminalId) : commandOutputs.get(params.terminalId)),
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/terminals/:terminalId",
      tag: "terminals",
      summary: "Resize a running terminal (its program gets SIGWINCH)",
      params: TerminalParams,
      body: ResizeTerminalBody,
      response: PtyTerminal,
      handler: ({ params, body }) => terminals.resize(params.terminalId, body.cols, body.rows),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/terminals/:terminalId",
      tag: "terminals",
      summary: "End a terminal: SIGHUP to its process group and the PTY hung up, SIGKILL after 2 s; then it is forgotten",
      params: TerminalParams,
      response: PtyTerminal,
      handler: ({ params }) => terminals.remove(params.terminalId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/terminals/:terminalId/tickets",
      tag: "terminals",
      summary: "A one-time ticket to open the terminal's socket from a browser (which cannot send the token on a WebSocket)",
      description:
        "Good for one `GET /v1/terminals/{id}/socket?ticket=…`, within 30 seconds, while the token that asked for it is valid; " +
        "the socket it opens closes (1008) when that token is revoked.",
      params: TerminalParams,
      response: TerminalTicket,
      successStatus: 201,
      moreErrors: { "403": REFUSED_BEYOND_LOOPBACK },
      handler: ({ params, request }) => {
        const holder = tokenHolder(request, tokens);
        // Revoked in the instant since the guard's check.
        if (!holder) throw unauthorized("the bearer token is not valid");
        return terminals.ticket(params.terminalId, holder.authorization);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/terminals/:terminalId/socket",
      tag: "terminals",
      summary: "Attach to a terminal over a WebSocket: its recent output, then live output; input and resizes",
      description:
        "Authorised by the `Authorization: Bearer` header, or by a `ticket` from `POST /v1/terminals/{id}/tickets` (never the " +
        "token in the URL). Server to client: binary frames of output (the last 256 KiB first), text frames " +
        '`{"type":"exit","exitCode":…,"signal":…}` when the process exits (then the socket closes) and `{"type":"error","error":…}` ' +
        "(a bad size, or input dropped: more than 1 MiB of it left unread by the program). It closes with 1008 when the token it " +
        "was opened with (or its ticket's) is revoked. " +
        'Client to server: binary or text frames of input; a text frame `{"type":"resize","cols":…,"rows":…}` resizes. A client ' +
        "more than 1 MiB behind gets `\\r\\n[atrium: skipped N bytes]\\r\\n` in place of what it missed. See docs/api.md.",
      params: TerminalParams,
      query: SocketQuery,
      response: Type.Null(),
      webSocket: true,
      ticketed: true,
      moreErrors: { "403": REFUSED_BEYOND_LOOPBACK, "426": "The request did not ask to upgrade to a WebSocket." },
      handler: ({ params, query, request, upgrade }) => {
        const holder = tokenHolder(request, tokens) ?? (query.ticket ? terminals.spendTicket(params.terminalId, query.ticket) : undefined);
        if (!holder) {
          throw unauthorized(
            'the socket needs the header "Authorization: Bearer <token>" or a ticket from POST /v1/terminals/{id}/tickets, unused, under 30 s old and asked for by a token still valid',
          );
        }
        const handlers = terminals.socket(params.terminalId, holder.authorization);
        if (!upgrade?.(handlers)) throw new HttpError(426, "this is a WebSocket: ask with `Upgrade: websocket`", { upgrade: "websocket" });
        // Not sent: the connection is a WebSocket now.
        return new Response(null);
      },
    }),
  ];
}
