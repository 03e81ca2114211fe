import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { TerminalTicket } from "../schemas/terminals.ts";

/** How long a ticket can be used: the moment between asking for it and opening the socket. */
export const TERMINAL_TICKET_TTL_MS = 30_000;

/**
 * One-time tickets to open a terminal's socket from a browser, which cannot set an Authorization
 * header on a WebSocket: each good for one terminal, once, within TERMINAL_TICKET_TTL_MS. The token
 * itself never goes in a URL. Kept in memory: a restart voids them, as it ends the terminals.
 */
export class TerminalTickets {
  private readonly tickets = new Map<string, { terminalId: string; expiresAt: number }>();

  constructor(private readonly clock: Clock) {}

  issue(terminalId: string): TerminalTicket {
    this.forgetExpired();
    const ticket = `tt_${randomBytes(24).toString("base64url")}`;
    const expiresAt = this.clock.now() + TERMINAL_TICKET_TTL_MS;
    this.tickets.set(ticket, { terminalId, expiresAt });
    return { ticket, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** Whether the ticket is good for this terminal now; it is spent either way. */
  spend(terminalId: string, ticket: string): boolean {
    this.forgetExpired();
    const found = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    return found?.terminalId === terminalId;
  }

  private forgetExpired(): void {
    const now = this.clock.now();
    for (const [ticket, found] of this.tickets) if (found.expiresAt <= now) this.tickets.delete(ticket);
  }
}
