import { inParallel } from "./pool.ts";

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

/**
 * `projects` scratch projects named "Project 1".., one after the other, then `sessions` echo sessions
 * titled "Session 1".., spread over the projects in turn, `SEED_CONCURRENCY` at a time.
 */
export async function seedEchoSessions(call: ApiCall, sessions: number, projects: number): Promise<void> {
  const ids: string[] = [];
  for (let index = 1; index <= projects; index++) {
    ids.push((await call<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true, name: `Project ${index}` })).id);
  }
  await inParallel(sessions, async (index) => {
    await call(201, "POST", "/v1/sessions", { projectId: ids[index % projects], harnessId: "echo", title: `Session ${index + 1}` });
  });
}
