import { Type } from "@sinclair/typebox";
import type { ClientService } from "../../clients/client-service.ts";
import { ClientId, ClientList, ClientWindowState, LayoutBody, NavigateBody, PutWindowStateBody, WindowActionBody } from "../../schemas/clients.ts";
import { defineRoute } from "../route.ts";

const ClientParams = Type.Object({ clientId: ClientId });
const ACTION_ERRORS =
  "404 for a client that never reported its windows, 409 when it is not connected or goes away before answering, 400 for what its " +
  "capabilities do not offer, 504 when it does not answer within 5 s.";

const NO_ANSWER = { "504": "The client did not answer within 5 s." };

export function clientRoutes(clients: ClientService) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/clients",
      tag: "clients",
      summary: "The clients that reported their windows: connected or not, when last seen, their layout",
      response: ClientList,
      handler: () => ({ clients: clients.list() }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/clients/:clientId/window",
      tag: "clients",
      summary: "A client's window state as it last reported it (also after it went away)",
      params: ClientParams,
      response: ClientWindowState,
      handler: ({ params }) => clients.get(params.clientId).state,
    }),
    defineRoute({
      method: "PUT",
      path: "/v1/clients/:clientId/window-state",
      tag: "clients",
      summary: "A client reports its whole window state; with ackActionId it answers that action",
      description: "The client is connected while it holds GET /v1/events/stream?clientId={clientId} open; its actions arrive there.",
      params: ClientParams,
      body: PutWindowStateBody,
      response: ClientWindowState,
      handler: ({ params, body }) => clients.putState(params.clientId, body),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/clients/:clientId/window",
      tag: "clients",
      summary: "Ask a client to focus, minimize or restore its window (endpoint 5); answers with the state it reports back",
      description: ACTION_ERRORS,
      moreErrors: NO_ANSWER,
      params: ClientParams,
      body: WindowActionBody,
      response: ClientWindowState,
      handler: ({ params, body }) => clients.act(params.clientId, { kind: "window", action: body.action }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/clients/:clientId/navigate",
      tag: "clients",
      summary: "Ask a client to show a page (and settings section) of its capabilities; answers with the state it reports back",
      description: ACTION_ERRORS,
      moreErrors: NO_ANSWER,
      params: ClientParams,
      body: NavigateBody,
      response: ClientWindowState,
      handler: ({ params, body }) => clients.act(params.clientId, { kind: "navigate", ...body }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/clients/:clientId/layout",
      tag: "clients",
      summary: "Ask a client to change its layout (e.g. open a session in a pane); answers with the state it reports back",
      description: ACTION_ERRORS,
      moreErrors: NO_ANSWER,
      params: ClientParams,
      body: LayoutBody,
      response: ClientWindowState,
      handler: ({ params, body }) => clients.act(params.clientId, { kind: "layout", ...body }),
    }),
  ];
}
