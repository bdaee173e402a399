/**
 * A filing's listed form (filings.listed): what a list or the change feed
 * shows of its debtors, secured parties and amendments, kept on the filing's
 * own row so that a page reads one row a filing rather than one a party and
 * amendment (src/queries/filings.ts, withParties).
 *
 * It is one JSON text, `[debtors, securedParties, amendments]`, each an
 * array of rows, each row its stored values in the columns' order below:
 * what SQLite's json_array writes from the tables themselves, so a page
 * makes the same text up from the tables for a filing without one.
 *
 * Only some filings have one: those with a change the feed keeps, which
 * every page of the change feed and the recent lists (mostly new filings)
 * read, and the live filings lapsing within LAPSING_DAYS of today, which the
 * lapse lists read (inLapseWindow). The rest of a state's filings (a
 * backfill's, which record no change) are read from the tables as before.
 * It repeats the parties' names and addresses and the lenders' details,
 * which the tables hold once: on every filing it took 20,630 seeded filings
 * from 1,306 bytes a filing to 1,600 (bench/STORAGE.md). A load that records
 * a filing's change, or loads a filing lapsing within the window, writes its
 * form, and any load keeps a form current; the daily job gives a lapsed
 * filing its form with its change, gives the filings that come within the
 * lapse window theirs, and takes the form off a filing whose last change
 * passes retention unless it lapses within the window (src/changes/daily.ts).
 */
import { getTableColumns } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { LAPSING_DAYS } from "../domain/lifecycle.ts";
import { isoDay } from "../domain/time.ts";
import type { FilingRows } from "./records.ts";
import { amendments, debtorParties, lenders, securedParties } from "./schema.ts";

const ADDRESS = ["street1", "street2", "city", "state", "zip", "country"] as const;
/** A debtor's columns in the listed form (debtor_parties). */
export const LISTED_DEBTOR = ["position", "type", "name", "industry", ...ADDRESS] as const;
/** A secured party's: its position on the filing, then its lender's details (lenders). */
export const LISTED_SECURED = ["position", "name", "category", ...ADDRESS] as const;
/** An amendment's: its number, time, kind and description (amendments). */
export const LISTED_AMENDMENT = ["number", "filedAt", "kind", "description"] as const;

type Columns = readonly (readonly [string, SQLiteColumn])[];
const pick = (table: SQLiteTable, keys: readonly string[]): Columns => {
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  return keys.map((key) => [key, columns[key] as SQLiteColumn] as const);
};

/** The stored column of each listed field, in order: the table's own, a secured party's details its lender's. */
export const listedColumns = {
  debtors: pick(debtorParties, LISTED_DEBTOR),
  securedParties: [["position", securedParties.position] as const, ...pick(lenders, LISTED_SECURED.slice(1))],
  amendments: pick(amendments, LISTED_AMENDMENT),
} as const;

/** A row's stored values in `columns` order, as the column stores each (null for none). */
function storedValues(row: Record<string, unknown>, columns: Columns): unknown[] {
  return columns.map(([key, column]) => {
    const value = row[key];
    return value === null || value === undefined ? null : column.mapToDriverValue(value);
  });
}

/** The listed form of a filing's rows (toRows, or as read back), its parties and amendments in position order. */
export function listedText(rows: Pick<FilingRows, "debtors" | "securedParties" | "amendments">): string {
  const byPosition = <T extends { position: number }>(list: T[]) => [...list].sort((a, b) => a.position - b.position);
  return JSON.stringify([
    byPosition(rows.debtors).map((d) => storedValues(d, listedColumns.debtors)),
    byPosition(rows.securedParties).map((s) => storedValues(s, listedColumns.securedParties)),
    byPosition(rows.amendments).map((a) => storedValues(a, listedColumns.amendments)),
  ]);
}

/** The lapse days whose live filings keep their listed form as of `now`: today through LAPSING_DAYS after. */
export function lapseWindow(now: Date): { from: string; through: string } {
  const today = Math.floor(now.getTime() / 86_400_000);
  return { from: isoDay(today), through: isoDay(today + LAPSING_DAYS) };
}

/** Whether a filing is live and lapses within the lapse window (lapseWindow) as of `now`. */
export function inLapseWindow(filing: Pick<FilingRows["filing"], "terminatedAt" | "lapseDate">, now: Date): boolean {
  const { from, through } = lapseWindow(now);
  const lapse = filing.lapseDate;
  return filing.terminatedAt === null && lapse !== null && lapse >= from && lapse <= through;
}
