/**
 * Nearest-rank percentile: the smallest sample with at least p% of the samples at or below it. No
 * interpolation, so every percentile is a value that was really observed. A missing sample (NaN,
 * null, undefined, ±Infinity) makes the percentile missing too (NaN, printed n/a): a figure never
 * leaves out what it could not see.
 */
export function percentile(values: readonly (number | null | undefined)[], p: number): number {
  if (values.length === 0 || values.some((value) => typeof value !== "number" || !Number.isFinite(value))) return Number.NaN;
  const sorted = [...(values as number[])].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
}

export const median = (values: readonly (number | null | undefined)[]): number => percentile(values, 50);

/** The median of one field over rounds or samples. */
export const medianOf = <T>(items: readonly T[], pick: (item: T) => number | null | undefined): number => median(items.map(pick));

export function summarize(values: readonly number[]) {
  return { count: values.length, p50: percentile(values, 50), p95: percentile(values, 95), p99: percentile(values, 99), max: percentile(values, 100) };
}

export type Summary = ReturnType<typeof summarize>;

/** a / b, missing (NaN) unless both are there and b is not 0: a ratio against a comparator it lacks is no ratio. */
export function ratio(a: number, b: number): number {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : Number.NaN;
}

/** The smallest, missing when any is: the least of some comparators cannot be known without all of them. */
export function smallest(values: readonly number[]): number {
  return values.length > 0 && values.every(Number.isFinite) ? Math.min(...values) : Number.NaN;
}

/** How long `work` took, in ms, and what it gave. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}
