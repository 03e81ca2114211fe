import { ClientService } from "../clients/client-service.ts";
import { clientRoutes } from "../http/routes/client-routes.ts";
import { ClientEvents } from "../schemas/clients.ts";
import { ClientRepository } from "../store/client-repository.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

export interface ClientTuning {
  /** How long an action waits for the client's answer. */
  answerTimeoutMs?: number;
}

/** The spec's wait for a client's answer to an action. */
const ANSWER_TIMEOUT_MS = 5_000;

/** Client windows: each client's reported layout, its presence, and actions sent to it. */
export const clientsModule = defineModule({
  name: "clients",
  features: MODULE_FEATURES.clients,
  eventKinds: ClientEvents,
  create: ({ store, clock, logger, modules }, tuning: ClientTuning | undefined) => {
    const { events, streams } = modules.get(coreModule);
    const clients = new ClientService({
      store,
      repository: new ClientRepository(store),
      events,
      clock,
      logger,
      isConnected: (clientId) => streams.isConnected(clientId),
      answerTimeoutMs: tuning?.answerTimeoutMs ?? ANSWER_TIMEOUT_MS,
    });
    streams.onPresence((clientId, connected) => clients.presenceChanged(clientId, connected));
    return { clients, routes: clientRoutes(clients), stop: () => clients.close() };
  },
});
