/**
 * Lapse and status of a filing, from UCC Article 9 rules:
 * - a financing statement lapses five years after filing (9-515(a));
 *   manufactured-home and public-finance transactions run thirty (9-515(b));
 *   a transmitting-utility filing does not lapse (9-515(f));
 * - a continuation counts only when filed within the six months before the
 *   lapse date, and then adds five years to that lapse date (9-515(d), (e));
 * - a termination ends the filing's effect.
 */
import type { AMENDMENT_KINDS, FILING_KINDS } from "../db/schema.ts";

export type FilingKind = (typeof FILING_KINDS)[number];
export type AmendmentKind = (typeof AMENDMENT_KINDS)[number];
export type LienStatus = "Active" | "Lapsed" | "Terminated";

/** YYYY-MM-DD of `date` moved by whole years and months, in UTC. */
export function shiftDate(date: string, years: number, months = 0): string {
  const d = new Date(`${date.slice(0, 10)}T00:00:00Z`);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCFullYear(d.getUTCFullYear() + years, d.getUTCMonth() + months);
  // Clamp to the month's last day: Feb 29 plus five years is Feb 28.
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d.toISOString().slice(0, 10);
}

/** The estimated lapse date (YYYY-MM-DD), or null for a filing that does not lapse. */
export function lapseDate(
  kind: FilingKind,
  filedAt: string,
  amendments: readonly { kind: AmendmentKind; filedAt: string }[],
): string | null {
  if (kind === "transmitting_utility") return null;
  const term = kind === "manufactured_home" || kind === "public_finance" ? 30 : 5;
  let lapse = shiftDate(filedAt, term);
  const continuations = amendments
    .filter((a) => a.kind === "continuation")
    .map((a) => a.filedAt.slice(0, 10))
    .sort();
  for (const filed of continuations) {
    if (filed >= shiftDate(lapse, 0, -6) && filed < lapse) lapse = shiftDate(lapse, 5);
  }
  return lapse;
}

/** When the filing was terminated: the first termination amendment, if any. */
export function terminatedAt(amendments: readonly { kind: AmendmentKind; filedAt: string }[]): string | null {
  const times = amendments.filter((a) => a.kind === "termination").map((a) => a.filedAt);
  return times.length > 0 ? times.sort()[0]! : null;
}

/** Status as of `today` (YYYY-MM-DD). */
export function lienStatus(
  filing: { lapseDate: string | null; terminatedAt: string | null },
  today: string,
): LienStatus {
  if (filing.terminatedAt !== null) return "Terminated";
  if (filing.lapseDate !== null && filing.lapseDate <= today) return "Lapsed";
  return "Active";
}
