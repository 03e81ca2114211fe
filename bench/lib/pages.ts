/** Follows a paged list's `Link: <…>; rel="next"` headers from `path`; returns how many items it held. */
export async function countAllPages(base: string, path: string, headers: Record<string, string>): Promise<number> {
  let count = 0;
  let next: string | undefined = path;
  while (next) {
    const response: Response = await fetch(base + next, { headers });
    if (response.status !== 200) throw new Error(`GET ${next} answered ${response.status}`);
    count += ((await response.json()) as unknown[]).length;
    next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get("link") ?? "")?.[1];
  }
  return count;
}
