/**
 * GET /states: each state a shard holds, with how many filings it has, how
 * many are live today, and how current its data is. One statement per
 * shard, a row per state: its summary (state_summaries, kept by the
 * loaders and the daily job: its total, live filings and those of them
 * lapsed by the day it was written, newest filing, loads and backfill),
 * and its "x" facet's days between that day and today (the live filings
 * lapsing since, none once the daily job has run today), which change with
 * the day and so are read rather than kept.
 */
import { type SQL, sql } from "drizzle-orm";
import { facetTallies, stateSummaries } from "../db/schema.ts";
import { lapsedThrough } from "../domain/lifecycle.ts";
import { isoDay } from "../domain/time.ts";
import { type Db, type Holes, template } from "./db.ts";

export interface StateCurrencyRow {
  state: string;
  filings: number;
  activeFilings: number;
  lastLoadedAt: string | null;
  dataThrough: string | null;
  backfillBeganAt: string | null;
  backfilledAt: string | null;
}

/**
 * The statement statesHeld sends, the same on every shard: its text is a
 * template, rendered once per isolate, with the day bound.
 */
const statement = template("states", (_: Record<string, never>, v: Holes<{ today: string }>) => {
  const s = stateSummaries;
  const x = facetTallies;
  // The "x" facet's filings on the days after `from` through `to` (days only: a month's row sorts after them).
  const days = (from: SQL, to: SQL) =>
    sql`coalesce((select sum(${x.filings}) from ${x} where ${x.scope} = 'x' and ${x.place} = ${s.state}
      and ${x.name} = '' and ${x.facet} = '' and ${x.day} > ${from} and ${x.day} <= ${to}), 0)`;
  const on = sql`coalesce(${s.lapsedOn}, '')`;
  const today = sql`${v.today}`;
  // Only the days between: none (not even a seek) on the day the summary was written.
  const since = sql`case when ${on} = ${today} then 0 when ${on} < ${today} then ${days(on, today)} else -${days(today, on)} end`;
  return sql`select ${s.state} as state, ${s.filings} as filings, ${s.live} - ${s.lapsed} - (${since}) as active,
      ${s.lastLoadedAt} as loaded, ${s.officeThrough} as office, ${s.newestFiledAt} as newest,
      ${s.backfillBeganAt} as began, ${s.backfillCompletedAt} as completed
    from ${s} where ${s.filings} > 0
    order by ${s.state}`;
});

/**
 * The statement of statesHeld on `today` (YYYY-MM-DD), for every shard: live
 * filings are those whose lapse date has not ended (lapsedThrough), the day
 * the summaries' `lapsed_on` is compared with.
 */
export const statesStatement = (today: string) => statement({}, { today: lapsedThrough(today) });

/** Each state one shard holds (its `statesStatement`), with its counts and currency. */
export async function statesHeld(db: Db, sent: SQL): Promise<StateCurrencyRow[]> {
  // A batch of one, so the round trip and its rows are metered as every other.
  const [rows] = await db.batch([
    db.all<{
      state: string;
      filings: number;
      active: number;
      loaded: number | null;
      office: number | null;
      newest: number | null;
      began: number | null;
      completed: number | null;
    }>(sent),
  ]);
  return rows.map((r) => ({
    state: r.state,
    filings: Number(r.filings),
    activeFilings: Number(r.active),
    lastLoadedAt: r.loaded === null ? null : fromSeconds(Number(r.loaded)),
    backfillBeganAt: r.began === null ? null : fromSeconds(Number(r.began)),
    backfilledAt: r.completed === null ? null : fromSeconds(Number(r.completed)),
    dataThrough: dataThroughOf(r.office, r.newest),
  }));
}

/** A summary's stored instant (seconds) as the API writes it: the column's own reading (src/db/encodings.ts, instant). */
const fromSeconds = (t: number) => stateSummaries.lastLoadedAt.mapFromDriverValue(t) as string;

/**
 * The date a state's data runs through, from its summary as stored: the
 * office's own date (days) where its feed states one, else the day of the
 * newest filing loaded (seconds); null for neither.
 */
export function dataThroughOf(office: number | null, newest: number | null): string | null {
  if (office !== null) return isoDay(Number(office));
  return newest === null ? null : fromSeconds(Number(newest)).slice(0, 10);
}

/** The later of two times (ISO text), either possibly null. */
const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);

/**
 * Each state once: the parts of a state split over several databases
 * (src/db/shards.ts) as one summary. Counts add (a filing is in one part);
 * the last load and the date the data runs through are the later of the
 * parts'; the backfill began when the first part's did, and is complete
 * when every part's is (its loads mark it in every part at once).
 */
export function combineParts(rows: StateCurrencyRow[]): StateCurrencyRow[] {
  const byState = new Map<string, StateCurrencyRow>();
  for (const row of rows) {
    const known = byState.get(row.state);
    if (!known) {
      byState.set(row.state, row);
      continue;
    }
    const began = [known.backfillBeganAt, row.backfillBeganAt].filter((t): t is string => t !== null).sort();
    byState.set(row.state, {
      state: row.state,
      filings: known.filings + row.filings,
      activeFilings: known.activeFilings + row.activeFilings,
      lastLoadedAt: later(known.lastLoadedAt, row.lastLoadedAt),
      dataThrough: later(known.dataThrough, row.dataThrough),
      backfillBeganAt: began[0] ?? null,
      // A part with no backfill (none begun there) leaves the others' as they are.
      backfilledAt:
        row.backfillBeganAt === null
          ? known.backfilledAt
          : known.backfillBeganAt === null
            ? row.backfilledAt
            : known.backfilledAt === null || row.backfilledAt === null
              ? null
              : later(known.backfilledAt, row.backfilledAt),
    });
  }
  return [...byState.values()];
}
