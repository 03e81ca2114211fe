import { useEffect, useState } from "preact/hooks";

/**
 * Whether the server answers: the last request or stream that reached it, or failed to. The console's
 * shell may come from the service worker's cache while the server is down; it then says so.
 */
let reachable = true;
const listeners = new Set<(reachable: boolean) => void>();

export function reportReachable(answered: boolean): void {
  if (answered === reachable) return;
  reachable = answered;
  for (const listener of listeners) listener(answered);
}

/** Calls `listener` each time the server answers again after it could not be reached; returns the function that stops that. */
export function onReachable(listener: () => void): () => void {
  const told = (answered: boolean) => answered && listener();
  listeners.add(told);
  return () => listeners.delete(told);
}

/** A request that never reached the server, said as a sentence (fetch's own is "Failed to fetch"). */
export class UnreachableError extends Error {
  constructor() {
    super("The server cannot be reached.");
  }
}

/** fetch, telling whether the server could be reached at all (any answer, even a refusal, counts). */
export async function reachingFetch(input: string, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (failure) {
    if (failure instanceof DOMException && failure.name === "AbortError") throw failure;
    reportReachable(false);
    throw new UnreachableError();
  }
  reportReachable(true);
  return response;
}

export function useReachable(): boolean {
  const [state, setState] = useState(reachable);
  useEffect(() => {
    listeners.add(setState);
    setState(reachable);
    return () => {
      listeners.delete(setState);
    };
  }, []);
  return state;
}
