/**
 * GET /states: each state a shard holds, with how many filings it has, how
 * many are live today, and how current its data is. One statement per
 * shard, a few rows per state: the totals come from the state's facets
 * (schema.ts: "s" counts every filing, the running total of "x" after
 * today the live ones), the load times from state_loads, and the newest
 * filing date from the end of filings_state_filed.
 *
 * The states come from a skip scan: `held` seeks the next place of scope
 * "s" after the last one found, one index seek per state, rather than
 * walking every "s" facet of the shard (one per industry set of each state:
 * thousands at a million filings). CROSS JOIN keeps `held` the outer loop:
 * left to choose, SQLite walks the facets in place order to spare a sort of
 * a few rows.
 */
import { type SQL, sql } from "drizzle-orm";
import { facetCounts, facetDays, filings, stateBackfills, stateLoads } from "../db/schema.ts";
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
  const f = facetCounts;
  return sql`with recursive held(place) as (
      select min(${f.place}) from ${f} where ${f.scope} = 's'
      union all
      select (select min(${f.place}) from ${f} where ${f.scope} = 's' and ${f.place} > held.place) from held
      where held.place is not null
    )
    select ${f.place} as state, ${f.filings} as filings,
      coalesce((select ${facetDays.running} from ${facetDays} where ${facetDays.scope} = 'x' and ${facetDays.place} = ${f.place}
        and ${facetDays.name} = '' and ${facetDays.facet} = '' and ${facetDays.day} > ${v.today} order by ${facetDays.day} limit 1), 0) as active,
      (select ${stateLoads.lastLoadedAt} from ${stateLoads} where ${stateLoads.state} = ${f.place}) as loaded,
      (select ${stateLoads.officeThrough} from ${stateLoads} where ${stateLoads.state} = ${f.place}) as office,
      (select max(${filings.filedAt}) from ${filings} where ${filings.state} = ${f.place}) as newest,
      (select ${stateBackfills.beganAt} from ${stateBackfills} where ${stateBackfills.state} = ${f.place}) as began,
      (select ${stateBackfills.completedAt} from ${stateBackfills} where ${stateBackfills.state} = ${f.place}) as completed
    from held cross join ${f} on ${f.scope} = 's' and ${f.place} = held.place and ${f.name} = '' and ${f.facet} = '*'
    where ${f.filings} > 0
    order by ${f.place}`;
});

/** The statement of statesHeld on `today` (YYYY-MM-DD), for every shard. */
export const statesStatement = (today: string) => statement({}, { today });

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
  const fromDays = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
  const fromSeconds = (t: number) => new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  return rows.map((r) => ({
    state: r.state,
    filings: Number(r.filings),
    activeFilings: Number(r.active),
    lastLoadedAt: r.loaded === null ? null : fromSeconds(Number(r.loaded)),
    backfillBeganAt: r.began === null ? null : fromSeconds(Number(r.began)),
    backfilledAt: r.completed === null ? null : fromSeconds(Number(r.completed)),
    dataThrough:
      r.office !== null
        ? fromDays(Number(r.office))
        : r.newest === null
          ? null
          : fromSeconds(Number(r.newest)).slice(0, 10),
  }));
}
