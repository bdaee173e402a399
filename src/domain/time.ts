import { flat, joined } from "./flat.ts";

const DAY_MS = 86_400_000;
/** Days most recently written out (a page's timestamps fall on few days); emptied when full. */
const dayTexts = new Map<number, string>();
const DAY_TEXTS_MAX = 4096;

/** YYYY-MM-DD of the day `days` days after 1970-01-01 (UTC). */
export function isoDay(days: number): string {
  let text = dayTexts.get(days);
  if (text === undefined) {
    text = new Date(days * DAY_MS).toISOString().slice(0, 10);
    if (dayTexts.size >= DAY_TEXTS_MAX) dayTexts.clear();
    dayTexts.set(days, text);
  }
  return text;
}

/** The day before `day` (YYYY-MM-DD). */
export const dayBefore = (day: string): string => isoDay(Date.parse(`${day.slice(0, 10)}T00:00:00Z`) / DAY_MS - 1);

/** YYYY-MM-DD, its year, month and day captured. */
const DAY_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The last calendar day a YYYY-MM-DD can write. */
export const LAST_DAY = "9999-12-31";

/**
 * Whether `text` is a calendar day written YYYY-MM-DD (February 29 in leap
 * years only), read without a Date: the one check of a day that the API's
 * parameters and the importers' office dates share.
 */
export function isCalendarDay(text: string): boolean {
  const parts = DAY_TEXT.exec(text);
  if (!parts) return false;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return month >= 1 && month <= 12 && day >= 1 && day <= days;
}

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * ISO 8601 UTC to the second, with Z: the form timestamps are stored and
 * served in. A page writes out hundreds, so the day comes from isoDay and
 * the time of day is written here, not through a Date.
 */
export function isoSeconds(date: Date | number): string {
  const ms = typeof date === "number" ? date : date.getTime();
  // Years 0 to 9999 here; beyond them toISOString's six-digit years, its milliseconds dropped.
  if (!(ms >= -62_167_219_200_000 && ms < 253_402_300_800_000)) {
    return flat(new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z"));
  }
  const seconds = Math.floor(ms / 1000);
  const days = Math.floor(seconds / 86_400);
  const inDay = seconds - days * 86_400;
  const hours = Math.floor(inDay / 3600);
  const minutes = Math.floor((inDay % 3600) / 60);
  // Two parts joined, not a template: a body's strings are kept sequential (flat.ts).
  return joined(isoDay(days), `T${two(hours)}:${two(minutes)}:${two(inDay % 60)}Z`);
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
