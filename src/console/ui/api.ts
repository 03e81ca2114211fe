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
}

/** Calls this server's interface with the token as the bearer header, never anywhere else. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const token = storedToken();
  const response = await fetch(path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401 && token) {
    forgetToken();
    onSignedOut();
  }
  const answer = (await response.json().catch(() => ({}))) as T & { error?: string };
  if (!response.ok) throw new ApiError(response.status, answer.error ?? `the server answered ${response.status}`);
  return answer;
}
