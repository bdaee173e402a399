/** Summaries the benchmarks share. */

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : mean(sorted.slice(mid - 1, mid + 1));
}
