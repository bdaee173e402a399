/**
 * Lapse and status of a filing.
 *
 * The filing office's record is authoritative: a lapse date the office
 * gives (on the filing, or with a later amendment) is the lapse date. Only
 * when it gives none is one computed, by the filing's kind:
 * - a UCC financing statement lapses five years after filing (9-515(a));
 *   manufactured-home and public-finance transactions run thirty (9-515(b));
 *   a transmitting-utility filing does not lapse (9-515(f)); an agricultural
 *   lien's financing statement lapses like any other (five years);
 * - liens that state indexes mix in have no UCC rule and their terms differ
 *   by state, so the estimate takes a long common term (showing a live lien
 *   as lapsed is the costlier mistake): ten years for state tax liens (for
 *   example California's), judgment liens, vessel liens and other liens; ten years and
 *   thirty days for a federal tax lien (the refiling period of IRC 6323(g),
 *   counted from filing since feeds do not carry the assessment date).
 *
 * An office may also say a filing does not lapse (NEVER_LAPSES).
 *
 * Continuations then apply to whichever date stands, office or computed: a
 * UCC continuation counts only when filed within the six months before the
 * lapse date, and adds five years to it (9-515(d), (e)); a lien's
 * continuation (refiling) counts when filed within the term that ends on
 * the lapse date, and adds the kind's term. A continuation the office
 * already counted lies outside the window of the date it produced, so it is
 * never counted twice.
 *
 * A termination ends the filing's effect, unless a later reinstatement
 * (`Termination Revoked`, `Erroneous Termination`) says it was filed in error.
 */
import type { AmendmentKind, FilingKind, LapseSource, LienStatus } from "./kinds.ts";
import { dayBefore } from "./time.ts";

/** Kinds that are liens rather than UCC financing statements. */
const LIEN_KINDS: ReadonlySet<FilingKind> = new Set([
  "state_tax_lien",
  "federal_tax_lien",
  "judgment_lien",
  "other_lien",
  "vessel_lien",
]);

/** Term of each kind, in years and days; null for a kind that does not lapse. */
const TERMS: Record<FilingKind, { years: number; days?: number } | null> = {
  standard: { years: 5 },
  agricultural_lien: { years: 5 },
  manufactured_home: { years: 30 },
  public_finance: { years: 30 },
  transmitting_utility: null,
  state_tax_lien: { years: 10 },
  federal_tax_lien: { years: 10, days: 30 },
  judgment_lien: { years: 10 },
  other_lien: { years: 10 },
  vessel_lien: { years: 10 },
};

/**
 * Days after today that a lapse list covers by default (GET
 * /filings/lapsing): the six months before a lapse date in which a
 * continuation may be filed. Live filings lapsing within them keep their
 * listed form (src/db/listed.ts).
 */
export const LAPSING_DAYS = 180;

/**
 * An office lapse date that says the filing does not lapse (Connecticut's
 * register writes one on liens "effective until released"): the lapse date
 * is then null, and its source the office.
 */
export const NEVER_LAPSES = "9999-12-31";

/** An office's lapse date as the lapse date it stands for: NEVER_LAPSES is none. */
const officeDate = (date: string) => (date === NEVER_LAPSES ? null : date);

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

function addTerm(date: string, term: { years: number; days?: number }): string {
  const shifted = shiftDate(date, term.years);
  if (!term.days) return shifted;
  return new Date(Date.parse(`${shifted}T00:00:00Z`) + term.days * 86_400_000).toISOString().slice(0, 10);
}

/** The day a term ending on `date` began: `date` less the term. */
function termStart(date: string, term: { years: number; days?: number }): string {
  const less = term.days
    ? new Date(Date.parse(`${date}T00:00:00Z`) - term.days * 86_400_000).toISOString().slice(0, 10)
    : date;
  return shiftDate(less, -term.years);
}

interface LapseEvent {
  kind: AmendmentKind;
  filedAt: string;
  /** The office's lapse date recorded with this amendment, if any. */
  lapseDate?: string | null;
}

/**
 * The lapse date (YYYY-MM-DD, or null for a filing that does not lapse) and
 * where it comes from: `office` when it is the office's date (extended by
 * any continuation filed since the office recorded it), `estimated` when it
 * was computed from the filing's kind.
 */
export function lapseOf(
  kind: FilingKind,
  filedAt: string,
  amendments: readonly LapseEvent[],
  officeLapseDate: string | null = null,
): { date: string | null; source: LapseSource } {
  const term = TERMS[kind];
  let date: string | null =
    officeLapseDate !== null ? officeDate(officeLapseDate) : term ? addTerm(filedAt, term) : null;
  let source: LapseSource = officeLapseDate !== null ? "office" : "estimated";
  const events = [...amendments]
    .filter((a) => a.kind === "continuation" || a.lapseDate)
    .sort((a, b) => (a.filedAt < b.filedAt ? -1 : a.filedAt > b.filedAt ? 1 : 0));
  for (const a of events) {
    if (a.lapseDate) {
      date = officeDate(a.lapseDate);
      source = "office";
      continue;
    }
    if (date === null) continue;
    const filed = a.filedAt.slice(0, 10);
    // A lien's refiling counts within the term that ends on the date: one before it produced the date already.
    const opens = LIEN_KINDS.has(kind) ? termStart(date, term ?? { years: 5 }) : shiftDate(date, 0, -6);
    // Through the lapse date itself: the filing stands until that day ends (lapsedThrough).
    if (filed >= opens && filed <= date) {
      date = LIEN_KINDS.has(kind) ? addTerm(date, term ?? { years: 5 }) : shiftDate(date, 5);
    }
  }
  return { date, source };
}

/** The lapse date alone (see lapseOf). */
export function lapseDate(
  kind: FilingKind,
  filedAt: string,
  amendments: readonly LapseEvent[],
  officeLapseDate: string | null = null,
): string | null {
  return lapseOf(kind, filedAt, amendments, officeLapseDate).date;
}

/**
 * When the filing was terminated: its first termination not revoked by a
 * later reinstatement (or one at the same time); null if none stands.
 */
export function terminatedAt(amendments: readonly { kind: AmendmentKind; filedAt: string }[]): string | null {
  // At one time, a reinstatement follows the termination it revokes, whatever order they arrived in.
  const rank = (kind: AmendmentKind) => (kind === "termination" ? 0 : kind === "reinstatement" ? 2 : 1);
  const sorted = [...amendments].sort((a, b) =>
    a.filedAt < b.filedAt ? -1 : a.filedAt > b.filedAt ? 1 : rank(a.kind) - rank(b.kind),
  );
  let terminated: string | null = null;
  for (const a of sorted) {
    if (a.kind === "termination" && terminated === null) terminated = a.filedAt;
    else if (a.kind === "reinstatement") terminated = null;
  }
  return terminated;
}

/**
 * The last lapse date whose filings have lapsed as of `today` (YYYY-MM-DD):
 * the day before. A filing lapses at the end of its lapse date, as filing
 * offices count it (a continuation filed that day is timely), so on its
 * lapse date it still stands, and it is lapsed from the next day. Every
 * count of live or lapsed filings (statuses, /states, the lien report, the
 * daily job's `filing.lapsed`) takes its line here.
 */
export const lapsedThrough = dayBefore;

/**
 * Whether a filing of lapse date `lapse` has lapsed on `today`: once its
 * lapse date has ended, on or before lapsedThrough(today), compared as text
 * (every response's statuses come through here).
 */
export const lapsedOn = (lapse: string, today: string) => lapse < today;

/** Status as of `today` (YYYY-MM-DD). */
export function lienStatus(
  filing: { lapseDate: string | null; terminatedAt: string | null },
  today: string,
): LienStatus {
  if (filing.terminatedAt !== null) return "Terminated";
  if (filing.lapseDate !== null && lapsedOn(filing.lapseDate, today)) return "Lapsed";
  return "Active";
}
