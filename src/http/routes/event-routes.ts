import { ClientId } from "../../schemas/clients.ts";
import { Type } from "@sinclair/typebox";
import { BEHIND_HORIZON, CursorResponse } from "../../schemas/events.ts";
import type { EventLog } from "../../events/event-log.ts";
import type { EventStreamHub } from "../../events/event-stream-hub.ts";
import { parseKindList } from "../../events/event-filter.ts";
import { defineRoute } from "../route.ts";
import { HttpError, unauthorized } from "../http-error.ts";
import type { AccessTokens } from "../../auth/access-tokens.ts";
import { revocableAuthorization, type TokenAuthorization } from "../../auth/revocation-watch.ts";
import { bearerToken, forwardedByProxy } from "../auth-guard.ts";
import type { StreamEncoding } from "../../events/stream-output.ts";
import { chooseEncoding, STREAM_PREFERENCE } from "../content-encoding.ts";
import { isLoopbackHost } from "../../system/loopback.ts";

/**
 * gzip when the client takes it, flushed after every event (so each arrives as soon as it did
 * plain), at about a seventh of the bytes; plain otherwise. Plain too for a client that reached the
 * server by a loopback name with no proxy between: its bytes cross no network, while each compressed
 * stream costs the server about 25 µs an event and 200 KiB (a stream is compressed per client; plain,
 * an event is encoded once for all of them).
 */
function streamEncoding(request: Request): StreamEncoding | undefined {
  if (isLoopbackHost(new URL(request.url).hostname) && !forwardedByProxy(request)) return undefined;
  return chooseEncoding(request.headers.get("accept-encoding"), STREAM_PREFERENCE);
}

const StreamQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, description: "Replay events after this globalEventId; without it only new events are sent." })),
  sessionId: Type.Optional(Type.String({ minLength: 1, description: "Only events of this session." })),
  kind: Type.Optional(Type.String({ minLength: 1, description: "Comma-separated kinds; `session.*` matches a prefix." })),
  clientId: Type.Optional(
    Type.String({
      ...ClientId,
      description:
        "A client that reports its windows (PUT /v1/clients/{clientId}/window-state) names itself: it is connected while the stream is open, and gets its `client.action` events here.",
    }),
  ),
});

/** `Last-Event-ID` (sent by EventSource on reconnect) wins over `after`, which stays in the URL. */
function resumePoint(request: Request, after: number | undefined): number | null {
  const lastEventId = request.headers.get("last-event-id");
  if (lastEventId !== null && lastEventId.trim() !== "") {
    if (!/^\d+$/.test(lastEventId.trim())) throw new HttpError(400, 'the "Last-Event-ID" header must be a globalEventId');
    return Number(lastEventId.trim());
  }
  return after ?? null;
}

/**
 * The token a stream is opened with (its name tells who watches a session). A stream on a named token
 * ends when that token is revoked; the admin token cannot be.
 */
function streamTokenOf(request: Request, tokens: AccessTokens): { tokenName: string; authorization: TokenAuthorization | undefined } {
  const token = bearerToken(request.headers.get("authorization")) ?? "";
  const identity = tokens.verify(token);
  // Revoked in the instant since the guard's check.
  if (identity === null) throw unauthorized("the bearer token is not valid");
  return { tokenName: identity.name, authorization: revocableAuthorization(tokens, token, identity.name) };
}

export function eventRoutes(log: EventLog, hub: EventStreamHub, tokens: AccessTokens) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/events/cursor",
      tag: "events",
      summary: "The durable global event cursor",
      response: CursorResponse,
      // Durable: what was published ahead of storing is stored first (where it can be).
      handler: () => ({ cursor: log.storedCursor(), horizon: log.horizon() }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/events/stream",
      tag: "events",
      summary: "Live events as Server-Sent Events, with replay from a cursor",
      description:
        "Resume with `after` or the `Last-Event-ID` header: the events after that id are replayed, then live " +
        "events follow with no gap and no duplicate. A `: heartbeat` comment is sent every 15 s. A client that " +
        "falls more than 4 MiB behind is disconnected and can resume from its last id. A stream opened with a named " +
        "token ends within about a second of the token's revocation. Events older than the retention period " +
        "(config `eventRetentionDays`) are compacted away: `after=0` replays what is kept; a cursor behind the horizon " +
        "(`GET /v1/events/cursor`) is refused 410, and one ahead of the log 409: re-read the state and resume from its cursor. " +
        "A client whose Accept-Encoding takes gzip gets the stream gzip-compressed, flushed after every event, unless it " +
        "reached the server by a loopback name (localhost, 127.0.0.1, ::1).",
      query: StreamQuery,
      moreErrors: BEHIND_HORIZON,
      response: Type.String(),
      eventStream: true,
      handler: ({ query, request }) => {
        const encoding = streamEncoding(request);
        const stream = hub.open({
          after: resumePoint(request, query.after),
          sessionId: query.sessionId,
          kinds: parseKindList(query.kind),
          clientId: query.clientId,
          ...streamTokenOf(request, tokens),
          encoding,
        });
        return new Response(stream, {
          headers: {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-store",
            "x-accel-buffering": "no",
            vary: "accept-encoding",
            ...(encoding ? { "content-encoding": encoding } : {}),
          },
        });
      },
    }),
  ];
}
