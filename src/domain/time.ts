/** ISO 8601 UTC to the second, with Z: the form timestamps are stored and served in. */
export function isoSeconds(date: Date | number): string {
  return new Date(date).toISOString().replace(/\.\d{3}Z$/, "Z");
}
