/** ISO 8601 UTC to the second, with Z: the form timestamps are stored and served in. */
export function isoSeconds(date: Date | number): string {
  // Years 0 to 9999: YYYY-MM-DDTHH:MM:SS is the first 19 characters.
  return `${new Date(date).toISOString().slice(0, 19)}Z`;
}

/** Length of the recency window of the recent-* and recently-terminated routes. */
const RECENT_DAYS = 90;

/**
 * Start of the recency window at `now`: midnight UTC, RECENT_DAYS days
 * before today. The window moves a whole day at a time, so it is counted
 * from per-day totals and a page's contents hold still within a day.
 */
export function recentWindowStart(now: Date | number): string {
  const day = Math.floor(new Date(now).getTime() / 86_400_000);
  if (day !== windowOf.day) windowOf = { day, start: isoSeconds((day - RECENT_DAYS) * 86_400_000) };
  return windowOf.start;
}
/** The last day's window start: every request of a day asks for the same one. */
let windowOf = { day: Number.NaN, start: "" };
