/** Calls the server's interface with a token; an answer other than `status` throws with its body. */
export type ApiCall = <T>(status: number, method: string, path: string, body?: unknown) => Promise<T>;

export function apiCaller(base: string, token: string): ApiCall {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  return async <T>(status: number, method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.status !== status) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
}
