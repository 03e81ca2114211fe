/** Requests made at once while seeding a server; the servers take them one by one anyway. */
export const SEED_CONCURRENCY = 8;

/** Runs `run(index)` for 0..count-1, `SEED_CONCURRENCY` at a time, in index order of starting. */
export async function inParallel(count: number, run: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < count) await run(next++);
    }),
  );
}
