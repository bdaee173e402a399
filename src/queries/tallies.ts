/**
 * Counts read from a facet's tallies (schema.ts, facet_tallies; written by
 * src/db/tallies.ts), a few rows each, whatever the data:
 * - filed since a day (a facet dated by filing or termination: the recent
 *   lists of a state, a ZIP code, a lender): the facet's total less its old
 *   bucket and its aged days (its facet_counts row), one row, once the
 *   daily job has marked the day the window's first; before that, less the
 *   tally of its last day before the day instead, two;
 * - lapsing in a window (a facet dated by lapse: lapse lists): the filings
 *   through its last day less those before its first, each the tally of
 *   the months before the day's month plus the tally of the day's month up
 *   to it: four rows, two within one month.
 */
import { and, desc, eq, gte, lt, lte, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { facetCounts, facetTallies } from "../db/schema.ts";
import { windowFrom } from "../db/tallies.ts";
import { query } from "./db.ts";

/** A facet as a count names it: each part a value, an expression or a column of the row in hand. */
export interface FacetRef {
  scope: SQLWrapper | (typeof facetTallies.$inferSelect)["scope"];
  place: SQLWrapper | string;
  name: SQLWrapper | string;
  facet: SQLWrapper | string;
}

const t = facetTallies;

/** `column` of the facet's last row that `bound` keeps (every row when none), null when there is none. */
function lastRow(f: FacetRef, column: "through" | "sets", bound?: SQL): SQL {
  const last = query
    .select({ value: t[column] })
    .from(t)
    .where(and(eq(t.scope, f.scope), eq(t.place, f.place), eq(t.name, f.name), eq(t.facet, f.facet), bound))
    .orderBy(desc(t.day))
    .limit(1);
  return sql`(${last})`;
}

/** The tally of the facet's last day that `bound` keeps (every day when none), 0 when there is none. */
const lastTally = (f: FacetRef, bound?: SQL): SQL<number> => sql<number>`coalesce(${lastRow(f, "through", bound)}, 0)`;

/**
 * The filings on days `day` and after of the facet whose facet_counts row
 * is `c`: its total less its old bucket and its filings before `day`, which
 * are its aged filings when the daily job has marked `day` the window's
 * first (the row alone), else the tally of its last day before `day` (a row
 * more).
 */
export function sinceFromCounts(
  c: FacetRef & Record<"filings" | "old" | "aged", SQLWrapper>,
  day: SQLWrapper | string,
): SQL<number> {
  const before = sql`case when ${windowFrom} = ${day} then ${c.aged} else ${tallyBefore(c, day)} end`;
  return sql<number>`(${c.filings} - ${c.old} - ${before})`;
}

const k = alias(facetCounts, "k");

/** The facet's filings on days `day` and after (sinceFromCounts), from its facet_counts row. */
export function filedSince(f: FacetRef, day: SQLWrapper | string): SQL<number> {
  const row = query
    .select({ since: sinceFromCounts(k, day) })
    .from(k)
    .where(and(eq(k.scope, f.scope), eq(k.place, f.place), eq(k.name, f.name), eq(k.facet, f.facet)));
  return sql<number>`coalesce((${row}), 0)`;
}

/** The facet's filings before `day`, its old bucket left out: the tally of its last day before `day`. */
const tallyBefore = (f: FacetRef, day: SQLWrapper | string): SQL<number> => lastTally(f, lt(t.day, day));

/** A facet dated by lapse: which of its rows tallies the days of `day`'s month before `day` (`upTo`: through it). */
const monthDaysRow = (day: SQLWrapper | string, upTo: boolean) =>
  and(gte(t.day, sql`substr(${day}, 1, 7)`), upTo ? lte(t.day, day) : lt(t.day, day));

/** A facet dated by lapse: which of its rows tallies the months before `day`'s month. */
const monthsRow = (day: SQLWrapper | string) => and(gte(t.day, "m"), lt(t.day, sql`'m' || substr(${day}, 1, 7)`));

/** A facet dated by lapse: its filings on the days of `day`'s month before `day` (`upTo`: through it). */
const monthDays = (f: FacetRef, day: SQLWrapper | string, upTo: boolean): SQL<number> =>
  lastTally(f, monthDaysRow(day, upTo));

/**
 * A facet dated by lapse: its filings on days before `day` (`upTo`: through
 * it), the months before the day's month ("m" rows) and the month's days.
 */
function lapsingBefore(f: FacetRef, day: SQLWrapper | string, upTo: boolean): SQL<number> {
  const months = lastTally(f, monthsRow(day));
  return sql<number>`(${months} + ${monthDays(f, day, upTo)})`;
}

/**
 * A facet dated by lapse: its filings on days `from` to `to` (inclusive).
 * Within one month the months before it cancel out, and only the month's
 * days are read, two rows (SQLite runs a CASE's subqueries only on the
 * branch taken).
 */
export function between(f: FacetRef, from: SQLWrapper | string, to: SQLWrapper | string): SQL<number> {
  return sql<number>`(case when substr(${from}, 1, 7) = substr(${to}, 1, 7)
    then ${monthDays(f, to, true)} - ${monthDays(f, from, false)}
    else ${lapsingBefore(f, to, true)} - ${lapsingBefore(f, from, false)} end)`;
}

/**
 * The sets (facet_tallies.sets) of the rows a lapse window's count takes
 * of the "x" facet `f` (as between takes their tallies): through `to`, the
 * months before its month and its month's days (`to`), and before `from`,
 * the same (`before`). Within one month the months before it cancel out:
 * they are null, and not read. Null where the facet has no such row.
 */
export function windowSets(
  f: FacetRef,
  from: SQLWrapper | string,
  to: SQLWrapper | string,
): { toMonths: SQL; toDays: SQL; beforeMonths: SQL; beforeDays: SQL } {
  const apart = (months: SQL) =>
    sql`(case when substr(${from}, 1, 7) = substr(${to}, 1, 7) then null else ${months} end)`;
  return {
    toMonths: apart(lastRow(f, "sets", monthsRow(to))),
    toDays: lastRow(f, "sets", monthDaysRow(to, true)),
    beforeMonths: apart(lastRow(f, "sets", monthsRow(from))),
    beforeDays: lastRow(f, "sets", monthDaysRow(from, false)),
  };
}
