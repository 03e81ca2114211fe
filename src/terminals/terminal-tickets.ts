import { randomBytes } from "node:crypto";
import { isStillCurrent, type TokenAuthorization } from "../auth/revocation-watch.ts";
import type { Clock } from "../clock.ts";
import type { TerminalTicket } from "../schemas/terminals.ts";

/** How long a ticket can be used: the moment between asking for it and opening the socket. */
export const TERMINAL_TICKET_TTL_MS = 30_000;

/** Who a spent ticket lets in: the token that asked for it, when that can be revoked (a named one). */
export interface TicketHolder {
  authorization: TokenAuthorization | undefined;
}

interface IssuedTicket extends TicketHolder {
  terminalId: string;
  expiresAt: number;
}

/**
 * One-time tickets to open a terminal's socket from a browser, which cannot set an Authorization
 * header on a WebSocket: each good for one terminal, once, within TERMINAL_TICKET_TTL_MS. The token
 * itself never goes in a URL. A ticket is good only while the token that asked for it is. Kept in
 * memory: a restart voids them, as it ends the terminals.
 */
export class TerminalTickets {
  private readonly tickets = new Map<string, IssuedTicket>();

  constructor(private readonly clock: Clock) {}

  issue(terminalId: string, authorization: TokenAuthorization | undefined): TerminalTicket {
    this.forgetExpired();
    const ticket = `tt_${randomBytes(24).toString("base64url")}`;
    const expiresAt = this.clock.now() + TERMINAL_TICKET_TTL_MS;
    this.tickets.set(ticket, { terminalId, expiresAt, authorization });
    return { ticket, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** Who the ticket lets in, when it is good for this terminal now (and its token still valid); it is spent either way. */
  spend(terminalId: string, ticket: string): TicketHolder | undefined {
    this.forgetExpired();
    const found = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (found?.terminalId !== terminalId) return undefined;
    if (found.authorization && !isStillCurrent(found.authorization)) return undefined;
    return { authorization: found.authorization };
  }

  private forgetExpired(): void {
    const now = this.clock.now();
    for (const [ticket, found] of this.tickets) if (found.expiresAt <= now) this.tickets.delete(ticket);
  }
}
