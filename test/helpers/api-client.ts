/** A JSON client for a server's interface with a bearer token: the status and the parsed body. */
export interface ApiClient {
  json<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

export function apiClient(url: string, token: string): ApiClient {
  return {
    async json<T>(method: string, path: string, body?: unknown) {
      const response = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as T };
    },
  };
}
