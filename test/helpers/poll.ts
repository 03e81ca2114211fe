/** Reads until `done` holds, or fails with the last value read once `timeoutMs` has passed. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met; last value ${JSON.stringify(value).slice(0, 2000)}`);
    await Bun.sleep(25);
  }
}
