/**
 * The lien report's digests (schema.ts, debtorReports): for each debtor
 * (match key) in each state, what a report's summary counts of its
 * filings, so that a report reads one row per debtor it finds rather than
 * every filing. A digest is rebuilt from the stored rows, like the other
 * per-debtor aggregates (src/db/load.ts, refreshStatements), for the
 * debtors a load touches and, by the daily job (src/changes/daily.ts), for
 * those whose filings lapsed.
 *
 * Which filings are live depends on the day, so a digest counts them as
 * of the day it was built (`as_of`, by the database's clock) and records
 * the soonest lapse date among them (`lapses_next`): until that day its
 * live counts are today's. The same statement, read rather than stored,
 * counts the filings of a report's debtors afresh where a digest is stale
 * or cannot be added to another (src/report/query.ts).
 */
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { COLLATERAL_CATEGORIES } from "../domain/collateral.ts";
import { FILING_KINDS } from "../domain/kinds.ts";
import type { Db } from "./database.ts";
import { categoryBit, FUNDING_TRAIT } from "./records.ts";
import { debtorParties, debtorReports, filings, lenders } from "./schema.ts";

/** Days of filing dates a digest keeps, before its day: the longest window the summary counts. */
const RECENT_DAYS = 180;

/** Today as days since 1970-01-01, by the database's clock: the day a digest is built as of. */
const databaseToday = sql`(cast(strftime('%s', 'now') as integer) / 86400)`;

/**
 * A JSON array of `counts` (SQL sums) without its trailing zeros (`[1]`
 * for `[1,0,0,0,0,0,0,0,0,0]`, `[]` for none), or null when nothing is
 * live: a debtor whose filings have all lapsed, most of them, keeps no
 * arrays. Most digests count one kind and no collateral category, and the
 * zeros were 47 of a digest's 163 bytes; a reader takes a missing count as
 * 0 (src/report/combine.ts). Each pass takes one `,0` off the end (a `,0`
 * elsewhere is followed by a comma, and `10]` has no comma before its 0).
 */
const countsOf = (counts: SQL[]) => {
  let array = sql`json_array(${sql.join(counts, sql`, `)})`;
  for (let i = 1; i < counts.length; i++) array = sql`replace(${array}, ',0]', ']')`;
  return sql`case when sum(live) > 0 then replace(${array}, '[0]', '[]') end`;
};

/** Filing times are seconds, negative before 1970: plus this, they are not, and fit 11 digits. */
export const KEY_TIME_OFFSET = 10_000_000_000;

/**
 * A filing as one SQL text that sorts as the report orders filings (filing
 * time, state, number, id): the time plus KEY_TIME_OFFSET in 11 digits, the
 * state's two letters when given, the number ended by char(1) (below any
 * character a number holds, so a shorter number sorts first, as text
 * compares), and the id in its last 10 digits. Arguments are column names.
 */
export const reportOrderKey = (time: string, number: string, id: string, state?: string) =>
  `printf('%011d', ${time} + ${KEY_TIME_OFFSET}) || ${state ? `${state} || ` : ""}${number} || char(1) || printf('%010d', ${id})`;

/**
 * Digest rows of the debtors whose party rows `parties` selects (a
 * condition on debtor_parties, named `dp`), as of the day `asOf` (days).
 * `by`: "debtor", a row per debtor and state (what is stored); "state", a
 * row per state of the selected debtors together, each filing counted once
 * whichever of them it names (a report's fresh count), with the key ''.
 * `ctes`: common table expressions `parties` reads, written before facts;
 * `before`: a select of the same columns led by `part` and ended by
 * `adds` and `filing`, whose rows come first (a report's found debtors and
 * their oldest live filing), the counted rows then marked `part` 'recount':
 * read only when the CTE `counted` (which `ctes` then names) holds a row,
 * so a report whose digests all serve reads none of the recount's parts
 * (four rows fewer); `recountIf`, a condition tested first, spares even
 * that look when it is false.
 */
export function digestSelect(
  parties: SQL,
  asOf: SQLWrapper,
  by: "debtor" | "state",
  { ctes, before, recountIf }: { ctes?: SQL; before?: SQL; recountIf?: SQL } = {},
): SQL {
  const key = by === "debtor" ? sql`dp.name_key` : sql`''`;
  // Live on `asOf`: a filing stands through its lapse date (lapsedThrough, src/domain/lifecycle.ts).
  const live = sql`(f.terminated_at is null and (f.lapse_date is null or f.lapse_date >= ${asOf}))`;
  const kinds = FILING_KINDS.map((_, code) => sql.raw(`sum(live and kind = ${code})`));
  const categories = COLLATERAL_CATEGORIES.map((_, i) => sql.raw(`sum(live and (traits & ${categoryBit(i)}) <> 0)`));
  // The oldest live filing in report order (time, then number: one state
  // here), its id read back from the key's last ten digits.
  const first = sql.raw(
    `cast(substr(min(case when live then ${reportOrderKey("filed_at", "number", "id")} end), -10) as integer)`,
  );
  return sql`with ${ctes ? sql`${ctes}, ` : sql``}facts as (
      select ${key} as k, dp.filing_state as s, f.id as id, f.filed_at as filed_at, f.number as number, f.kind as kind,
        f.lapse_date as lapse, f.terminated_at as ended, coalesce(f.traits, 0) as traits, f.lenders as lenders,
        ${live} as live
      from ${debtorParties} dp join ${filings} f on f.id = dp.filing_id
      where ${parties}
      group by ${key}, dp.filing_state, f.id
    )
    ${before ? sql`${before} union all select 'recount' as part, ` : sql`select `}g.k, g.s, ${asOf} as as_of, g.filings, g.terminated, g.active, g.kinds, g.categories, p.lenders, r.recent, g.first_active, g.lapses_next, g.first_active_at${before ? sql`, 1 as adds, null as filing` : sql``}
    from ${before ? sql`(select 1 where ${recountIf ? sql`${recountIf} and ` : sql``}exists (select 1 from counted)) as recounting cross join ` : sql``}(
      select k, s, count(*) as filings, sum(ended is not null) as terminated, sum(live) as active,
        ${countsOf(kinds)} as kinds, ${countsOf(categories)} as categories,
        ${first} as first_active, min(case when live then lapse end) as lapses_next,
        min(case when live then filed_at end) as first_active_at
      from facts group by k, s
    ) g
    left join (
      select k, s, json_group_array(json_array(name, n)) as lenders from (
        select x.k, x.s, l.name as name, count(distinct x.id) as n
        from facts x, json_each(x.lenders) j join ${lenders} l on l.id = j.value
        where x.live group by x.k, x.s, l.name
      ) group by k, s
    ) p on p.k = g.k and p.s = g.s
    left join (
      select k, s, json_group_array(json_array(day, n, m)) as recent from (
        select k, s, filed_at / 86400 as day, count(*) as n, sum((traits & ${sql.raw(String(FUNDING_TRAIT))}) <> 0) as m
        from facts where filed_at >= (${asOf} - ${sql.raw(String(RECENT_DAYS))}) * 86400
        group by k, s, day
      ) group by k, s
    ) r on r.k = g.k and r.s = g.s`;
}

/**
 * Rebuilds the digests of the debtors `keys` selects (a subquery or
 * condition on a name_key column, given as a function of it; every debtor
 * when absent), as of `asOf` (YYYY-MM-DD; default today by the database's
 * clock): a delete and an insert, for a batch. Query builders rather than
 * raw statements, which Drizzle's D1 driver cannot bind in a batch.
 */
export function digestStatements(db: Db, keys?: (nameKey: SQL) => SQL, asOf?: string) {
  const day = asOf === undefined ? databaseToday : sql`${Date.parse(`${asOf}T00:00:00Z`) / 86_400_000}`;
  const stored = keys ? keys(sql`${debtorReports.nameKey}`) : sql`1`;
  const parties = keys ? keys(sql`dp.name_key`) : sql`1`;
  return [
    db.delete(debtorReports).where(stored),
    // Columns in the table's order, as Drizzle lists them in the insert.
    db.insert(debtorReports).select(digestSelect(sql`${parties} and dp.name_key <> ''`, day, "debtor")),
  ] as const;
}
