import { Type } from "@sinclair/typebox";
import type { MachineService } from "../../machines/machine-service.ts";
import {
  HeartbeatAnswer,
  HeartbeatBody,
  Machine,
  MachineList,
  PairAcceptAnswer,
  PairAcceptBody,
  PairBody,
  PairingCode,
  SyncChanges,
  SyncPushAnswer,
  SyncPushBody,
} from "../../schemas/machines.ts";
import { bearerToken } from "../auth-guard.ts";
import { defineRoute } from "../route.ts";

const PEER_ONLY = { "403": "The token is not a paired machine's." };
const PAIRING_REFUSED = {
  "401": "The pairing code is wrong, used or expired (nothing was stored).",
  "429": "Too many wrong codes in a minute; `Retry-After` says when to try again.",
};
const callerToken = (request: Request) => bearerToken(request.headers.get("authorization"));

export function machineRoutes(machines: MachineService) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/machines",
      tag: "machines",
      summary: "The machines of the account: this one first, then every paired machine with whether it answers",
      response: MachineList,
      handler: () => machines.list(),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/machines/pairing-codes",
      tag: "machines",
      summary: "A one-use code (valid 10 minutes) another machine pairs with this one by",
      response: PairingCode,
      successStatus: 201,
      handler: ({ request }) => machines.issueCode(machines.tokenName(callerToken(request))),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/machines/pair",
      tag: "machines",
      summary: "Pair this machine with the one at `url` that made `code`: each mints a token for the other",
      description: "This server calls the other machine once; 502 when it cannot be reached, 409 when it is this machine.",
      moreErrors: { ...PAIRING_REFUSED, "502": "The other machine could not be reached or refused." },
      body: PairBody,
      response: Machine,
      successStatus: 201,
      handler: ({ body, request }) => machines.pair(body, machines.tokenName(callerToken(request))),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/machines/pair/accept",
      tag: "machines",
      summary: "Between machines: another machine pairs with this one, the code standing in for a token",
      ticketed: true,
      moreErrors: PAIRING_REFUSED,
      body: PairAcceptBody,
      response: PairAcceptAnswer,
      handler: ({ body }) => machines.accept(body),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/machines/:machineId",
      tag: "machines",
      summary: "Remove another machine from the account (endpoint 21): its token is revoked and it is told",
      description: "409 for the current machine.",
      params: Type.Object({ machineId: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: MachineList,
      handler: ({ params }) => machines.remove(params.machineId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/machines/peer/heartbeat",
      tag: "machines",
      summary: "Between machines: the health call, telling each other's event cursor",
      moreErrors: PEER_ONLY,
      body: HeartbeatBody,
      response: HeartbeatAnswer,
      handler: ({ body, request }) => machines.heartbeat(machines.machineOf(callerToken(request)), body),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/machines/peer/changes",
      tag: "machines",
      summary: "Between machines: the sync entries changed after an event cursor",
      moreErrors: PEER_ONLY,
      query: Type.Object({ after: Type.Integer({ minimum: -1, description: "The cursor of the last page; -1 for everything." }) }),
      response: SyncChanges,
      handler: ({ query, request }) => {
        machines.machineOf(callerToken(request));
        return machines.changes(query.after);
      },
    }),
    defineRoute({
      method: "PUT",
      path: "/v1/machines/peer/changes",
      tag: "machines",
      summary: "Between machines: sync entries another machine changed; the newer ones are kept",
      moreErrors: PEER_ONLY,
      body: SyncPushBody,
      bodyLimitBytes: 16 * 1024 * 1024,
      response: SyncPushAnswer,
      handler: ({ body, request }) => {
        machines.machineOf(callerToken(request));
        return machines.receive(body);
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/machines/peer/unpair",
      tag: "machines",
      summary: "Between machines: the calling machine removed this one, which forgets it too",
      moreErrors: PEER_ONLY,
      response: MachineList,
      handler: ({ request }) => machines.unpairedBy(machines.machineOf(callerToken(request))),
    }),
  ];
}
