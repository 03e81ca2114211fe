import { Type } from "@sinclair/typebox";
import type { AccessTokens } from "../../auth/access-tokens.ts";
import { CreateTerminalBody, ResizeTerminalBody, PtyTerminal, PtyTerminalList, TerminalListQuery, TerminalTicket } from "../../schemas/terminals.ts";
import type { TerminalLogs } from "../../harness/terminal-logs.ts";
import { Terminal as CommandOutput } from "../../schemas/harnesses.ts";
import type { TerminalService } from "../../terminals/terminal-service.ts";
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

const REFUSED_BEYOND_LOOPBACK = "Refused while the server listens beyond loopback without TLS, unless config.json says `terminalsOverPlainHttp: true`.";

export function terminalRoutes(terminals: TerminalService, commandOutputs: TerminalLogs, tokens: AccessTokens) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/terminals",
      tag: "terminals",
      summary: "Terminals, oldest first: running ones, and exited ones for 10 minutes",
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
      description: "Good for one `GET /v1/terminals/{id}/socket?ticket=…`, within 30 seconds.",
      params: TerminalParams,
      response: TerminalTicket,
      successStatus: 201,
      moreErrors: { "403": REFUSED_BEYOND_LOOPBACK },
      handler: ({ params }) => terminals.ticket(params.terminalId),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/terminals/:terminalId/socket",
      tag: "terminals",
      summary: "Attach to a terminal over a WebSocket: its recent output, then live output; input and resizes",
      description:
        "Authorised by the `Authorization: Bearer` header, or by a `ticket` from `POST /v1/terminals/{id}/tickets` (never the " +
        "token in the URL). Server to client: binary frames of output (the last 256 KiB first), text frames " +
        '`{"type":"exit","exitCode":…,"signal":…}` when the process exits (then the socket closes) and `{"type":"error","error":…}`. ' +
        'Client to server: binary or text frames of input; a text frame `{"type":"resize","cols":…,"rows":…}` resizes. A client ' +
        "more than 1 MiB behind gets `\\r\\n[atrium: skipped N bytes]\\r\\n` in place of what it missed. See docs/api.md.",
      params: TerminalParams,
      query: SocketQuery,
      response: Type.Null(),
      webSocket: true,
      ticketed: true,
      moreErrors: { "403": REFUSED_BEYOND_LOOPBACK, "426": "The request did not ask to upgrade to a WebSocket." },
      handler: ({ params, query, request, upgrade }) => {
        const token = bearerToken(request.headers.get("authorization"));
        const byToken = token !== undefined && tokens.verify(token) !== null;
        if (!byToken && !(query.ticket && terminals.spendTicket(params.terminalId, query.ticket))) {
          throw unauthorized(
            'the socket needs the header "Authorization: Bearer <token>" or a ticket from POST /v1/terminals/{id}/tickets, unused and under 30 s old',
          );
        }
        const handlers = terminals.socket(params.terminalId);
        if (!upgrade?.(handlers)) throw new HttpError(426, "this is a WebSocket: ask with `Upgrade: websocket`", { upgrade: "websocket" });
        // Not sent: the connection is a WebSocket now.
        return new Response(null);
      },
    }),
  ];
}
