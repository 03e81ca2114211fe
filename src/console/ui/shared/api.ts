import { reachingFetch, UnreachableError } from "./connection.ts";
import { forgetKeptReads, keepable, keepRead, keptRead } from "./kept-reads.ts";

/** Where the console keeps the token it signed in with (this browser only). */
const TOKEN_KEY = "atrium.token";

/** A refusal from the server, with its `{error}` sentence. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Told when the server refuses the token (401): the console goes back to sign-in. */
let onSignedOut: () => void = () => {};

export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener;
}

export function storedToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

export function keepToken(token: string): void {
  localStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  localStorage.removeItem(TOKEN_KEY);
  void forgetKeptReads();
}

/** A read from the server; while it cannot be reached, what the device kept of the same read (kept-reads.ts), if anything. */
async function fetchOrKept(path: string, init: RequestInit): Promise<Response> {
  const reading = init.method === "GET" && keepable(path);
  try {
    const response = await reachingFetch(path, init);
    if (reading && response.ok) void keepRead(path, response.clone()).catch(() => undefined);
    return response;
  } catch (failure) {
    const kept = reading && failure instanceof UnreachableError ? await keptRead(path).catch(() => undefined) : undefined;
    if (!kept) throw failure;
    return kept;
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<{ answer: T; response: Response }> {
  const token = storedToken();
  const response = await fetchOrKept(path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // Only a refusal of this token carries WWW-Authenticate; another 401 (a machine refusing a pairing
  // code, a console link used twice) is that call's failure, not a reason to sign out.
  if (response.status === 401 && token && response.headers.has("www-authenticate")) {
    forgetToken();
    onSignedOut();
  }
  const answer = (await response.json().catch(() => ({}))) as T & { error?: string };
  if (!response.ok) throw new ApiError(response.status, answer.error ?? `the server answered ${response.status}`);
  return { answer, response };
}

/** Calls this server's interface with the token as the bearer header, never anywhere else. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await call<T>(method, path, body)).answer;
}

/** The next page a paged list names in its `Link: <…>; rel="next"` header, if any. */
function nextPage(response: Response): string | null {
  return /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1] ?? null;
}

/** A page of a paged list: its items, the path of the next page (null on the last), the event cursor it was read at. */
interface ListPage<T> {
  items: T[];
  next: string | null;
  eventCursor: number;
}

export async function readPage<T>(path: string): Promise<ListPage<T>> {
  const { answer, response } = await call<T[]>("GET", path);
  const eventCursor = response.headers.has("atrium-event-cursor") ? Number(response.headers.get("atrium-event-cursor")) : Number.NaN;
  if (!Number.isInteger(eventCursor)) throw new Error(`${path} did not say the event cursor it was read at`);
  return { items: answer, next: nextPage(response), eventCursor };
}

/** Reads a paged list to its end, handing each page over as it arrives so the first can be shown at once. */
export async function readPages<T>(path: string, onPage: (items: T[]) => void): Promise<void> {
  let next: string | null = path;
  while (next) {
    const page: ListPage<T> = await readPage<T>(next);
    onPage(page.items);
    next = page.next;
  }
}
