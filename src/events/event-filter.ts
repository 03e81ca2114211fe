import type { LoggedEvent } from "./event-log.ts";

export interface EventFilter {
  sessionId?: string;
  /** The client whose stream this is: it alone gets the actions addressed to it. */
  clientId?: string;
  /** Exact kinds, or prefixes written `session.*`; empty or absent means every kind. */
  kinds?: string[];
}

/** Parses the `kind` query value: a comma-separated list of kinds or `prefix.*` patterns. */
export function parseKindList(value: string | undefined): string[] | undefined {
  const kinds = value
    ?.split(",")
    .map((kind) => kind.trim())
    .filter((kind) => kind.length > 0);
  return kinds && kinds.length > 0 ? kinds : undefined;
}

export function matchesFilter(event: LoggedEvent, filter: EventFilter): boolean {
  if (filter.sessionId !== undefined && event.sessionId !== filter.sessionId) return false;
  if (event.addressedTo !== null && event.addressedTo !== filter.clientId) return false;
  if (!filter.kinds) return true;
  const kind = event.record.kind;
  return filter.kinds.some((pattern) => (pattern.endsWith(".*") ? kind.startsWith(pattern.slice(0, -1)) : kind === pattern));
}
