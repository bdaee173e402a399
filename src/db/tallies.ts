/**
 * What a load writes of the counted lists' facets (schema.ts, facetCounts):
 * each facet's total (facet_counts) and its filings by day with tallies
 * (facet_tallies), and the refresh of tallies a load left behind
 * (stale_tallies).
 *
 * A tally runs forward over a group of a facet's rows: it is the filings of
 * its row and of every earlier row of the group, so adding to a row
 * changes that row and every later one of its group, never an earlier one.
 * - A facet dated by filing or termination ("s", "z", "l", "o", "t") is one
 *   group of days: a new filing is counted on its facets' newest day, one
 *   row. Days before the recency window at load time are one bucket,
 *   facet_counts.old, outside the tallies: a change to an old filing
 *   writes its facet_counts rows alone.
 * - A facet dated by lapse ("x", "y") has lapse days on both sides of a new
 *   filing's (continued filings lapse up to ten years out), so its days are
 *   grouped by month, each day's tally running within its month, and each
 *   month has a row of its own ("m" and the month: after every day in key
 *   order) whose tally runs over the months: a filing added on a day
 *   changes the later days of its month and the later months, a few dozen
 *   rows at most, where one tally over all days changed thousands.
 * - A lender's facet by lapse ("k") is kept by month alone: a row a month,
 *   its own group, whose `sets` holds the running totals of its days
 *   (keptRunning), so a change writes its month's row and never a later one
 *   (at five million filings, tallies running over a lender's months cost
 *   a termination 27.7 rows more: bench/WRITES.md). A window's count reads
 *   its months' rows (src/queries/lapsing.ts, lenderBetween).
 * A row with later rows in its group is written with the tally of the rows
 * before it, and its group is marked stale from that row: the refresh
 * (refreshStatements in load.ts) computes the group's later rows once per
 * load, whatever the number of batches that marked it, and writes those
 * whose tally moved.
 *
 * The "x" facet's rows also tally its filings by exact industry set
 * (facet_tallies.sets, JSON). A load does not touch them: it adds its
 * changes by day and set to lapse_set_changes and marks the groups stale
 * from those days, and the refresh writes each row's sets with its tally,
 * the row's own plus the changes on or before its day.
 *
 * Rows written per facet a batch changes: its facet_counts row, its day's
 * row (and, dated by lapse, its month's); per stale group, its
 * stale_tallies row (and its deletion) and the later rows whose tally
 * moved, once per load.
 */
import { and, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { INDUSTRIES } from "../domain/industries.ts";
import { D1_MAX_PARAMS, type Db } from "./database.ts";
import { lookedUp } from "./lenders.ts";
import {
  type FacetDay,
  INDUSTRY_PLACE,
  industryLetterSql,
  isIndustryPlace,
  LAPSE_DATED,
  LAPSE_SETS,
  OLD_DAYS,
} from "./records.ts";
import { facetCounts, facetTallies, lapseSetChanges, staleTallies, tallyMarks } from "./schema.ts";

type Statement = BatchItem<"sqlite">;

/** A count by day of a facet of facet_tallies (not of the "x" facet's sets). */
type TallyDay = FacetDay & { scope: Exclude<FacetDay["scope"], typeof LAPSE_SETS> };

/** Tally rows sent per statement (one JSON parameter): well under D1's limits on a value. */
const ROWS_PER_STATEMENT = 1_000;

function chunk<T>(rows: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/**
 * A lender facet's name id (facet_counts.ref): looked up by the statement
 * that writes it, after the batch wrote the names (lenderStatements), or
 * known already (a bulk load's, scripts/bulk/).
 */
export type NameIdOf = (words: string) => number | SQL;
const lookedUpName: NameIdOf = (words) => lookedUp.nameId(words);

const t = facetTallies;
const c = facetCounts;
/** A JSON row of a statement's tally rows (`value`: [scope, place, name, facet, day, filings, group, group's end]), field `i`. */
const field = (i: number) => sql.raw(`j.value ->> ${i}`);
/** The facet_tallies row `alias` of the JSON row's facet. */
const sameFacet = (alias: string) =>
  sql.raw(
    `${alias}.scope = j.value ->> 0 and ${alias}.place = j.value ->> 1 and ${alias}.name = j.value ->> 2 and ${alias}.facet = j.value ->> 3`,
  );

/** Each facet and day once, its counts added; none left at zero (a filing replaced on the same days). */
function netted(days: FacetDay[]): FacetDay[] {
  const sums = new Map<string, FacetDay>();
  for (const d of days) {
    const id = [d.scope, d.place, d.name, d.facet, d.day].join("\u0000");
    const seen = sums.get(id);
    if (seen) seen.filings += d.filings;
    else sums.set(id, { ...d });
  }
  return [...sums.values()].filter((d) => d.filings !== 0);
}

/** The scopes dated by lapse whose days are grouped by month (above). */
const BY_MONTH: ReadonlySet<FacetDay["scope"]> = new Set(["x", "y"]);
/**
 * The scopes dated by lapse kept by month alone (a lender's, "k"): a row a
 * month, each its own group, whose `sets` holds its days' running totals
 * (lenderMonthStatements), so a change writes its month's row and never a
 * later one.
 */
const MONTHS_ALONE: ReadonlySet<FacetDay["scope"]> = new Set(["k"]);
/** Scopes as an SQL list. */
const listOf = (scopes: Iterable<string>) => `(${[...scopes].map((scope) => `'${scope}'`).join(", ")})`;
/** Every scope dated by lapse (records.ts, LAPSE_DATED), as an SQL list: none has old days or aged filings. */
const LAPSE_SQL = sql.raw(listOf(LAPSE_DATED));

/** The first day of the window whose days before it facet_counts.aged holds (schema.ts, tally_marks). */
export const windowFrom = sql`(select ${tallyMarks.windowFrom} from ${tallyMarks} where ${tallyMarks.id} = 1)`;

/** A month's own row of a facet dated by lapse: "m" and the month, after every day in key order. */
export const monthRow = (day: string) => `m${day.slice(0, 7)}`;

/**
 * The group of a facet's row `day`, as the first and last keys of its
 * range [from, to): the whole facet (""), a month of days ("2031-11"), or
 * the months ("m"). A group's name is its first key.
 */
function groupOf(scope: FacetDay["scope"], day: string): { from: string; to: string } {
  if (!BY_MONTH.has(scope)) return { from: "", to: "~" };
  if (day.startsWith("m")) return { from: "m", to: "n" };
  const month = day.slice(0, 7);
  return { from: month, to: `${month}~` };
}

/** The tally rows `changed` adds to: its days, and the months of days dated by lapse (not those kept by month alone). */
function tallyRows(changed: FacetDay[]): FacetDay[] {
  const months = new Map<string, FacetDay>();
  for (const d of changed) {
    if (!BY_MONTH.has(d.scope)) continue;
    const month = { ...d, day: monthRow(d.day) };
    const id = [d.scope, d.place, d.name, d.facet, month.day].join("\u0000");
    const seen = months.get(id);
    if (seen) seen.filings += d.filings;
    else months.set(id, month);
  }
  return [
    ...changed.filter((d) => d.day !== OLD_DAYS && !MONTHS_ALONE.has(d.scope)),
    ...[...months.values()].filter((m) => m.filings !== 0),
  ];
}

/** Days of a month, as a month's running totals are kept (lenderMonthStatements). */
export const MONTH_DAYS = 31;

/**
 * A month's running totals by day (`running[i]`: its filings on days 1 to
 * i + 1, the last its `total`) as a lender's month row keeps them in
 * `sets`: the index of the first that is not 0, then those from it up to
 * the last that is not the total ("[16]": every filing on the 17th). The
 * days before are 0 and the days after the total, so a month of a few
 * filings, as most of a lender's are, takes a few bytes, not 31 numbers
 * (63 bytes on average at a million filings of fifty states, 21 so).
 */
export function keptRunning(running: readonly number[], total: number): string {
  let first = 0;
  while (first < running.length && running[first] === 0) first += 1;
  let last = running.length - 1;
  while (last >= first && running[last] === total) last -= 1;
  return JSON.stringify([first, ...running.slice(first, last + 1)]);
}

/** In SQL, a lender month row's running total on day `index` + 1 (keptRunning): 0 before its first, its filings after its last. */
export const runningOn = (sets: SQLWrapper, filings: SQLWrapper, index: SQLWrapper) => keptOn(sets, filings, index, 0);

/**
 * In SQL, the running total on day `index` + 1 of an array kept as
 * keptRunning keeps one, its first day's index at `at` and the totals after
 * it: 0 before that day, `total` after the last kept.
 */
const keptOn = (kept: SQLWrapper, total: SQLWrapper, index: SQLWrapper, at: 0 | 1) =>
  sql`(case when ${index} < (${kept} ->> ${sql.raw(String(at))}) then 0 else coalesce(${kept} ->> (${index} - (${kept} ->> ${sql.raw(String(at))}) + ${sql.raw(String(at + 1))}), ${total}) end)`;

/** The keys of a month's days (0 to 30), as SQL iterates them. */
const DAY_INDEXES = sql.raw(`'${JSON.stringify(Array.from({ length: MONTH_DAYS }, (_, i) => i))}'`);

/** Whether a facet's day is kept by month alone (a lender's by lapse): a bulk load leaves them to lenderMonthsFromFilings. */
export const keptByMonth = (d: FacetDay) => MONTHS_ALONE.has(d.scope);

/** A lender month's running totals by day of a change's filings, and the same under each industry term. */
type MonthChange = { key: string[]; running: number[]; terms: Map<string, number[]> };

/**
 * A term's filings and running totals as a lender month row keeps them in
 * `industries` (schema.ts): its filings, then its running totals as
 * keptRunning keeps a month's.
 */
function keptTerm(running: readonly number[], total: number): string {
  return `[${total},${keptRunning(running, total).slice(1)}`;
}

/**
 * In SQL, a term's running total on day `index` + 1 (0 before the month,
 * its filings from index 30 on), from its array as keptTerm writes it
 * (`term`: JSON text), or null for no term.
 */
export const termAt = (term: SQLWrapper, index: SQLWrapper) => keptOn(term, sql`${term} ->> 0`, index, 1);

/** termAt, 0 for no term. */
const termOn = (term: SQLWrapper, index: SQLWrapper) => sql`coalesce(${termAt(term, index)}, 0)`;

/**
 * In SQL, the running totals `x` of a month's days (an expression over
 * json_each.key, the day's index) kept again as keptRunning keeps them,
 * after `head` (the array's opening and what comes before the first day's
 * index): `total` the last of them.
 */
const keptAgain = (
  head: SQL,
  x: SQL,
  total: SQL,
) => sql`(select ${head} || sum(month_days.x = 0) || coalesce(group_concat(
      case when month_days.x > 0 and month_days.x < ${total} then ',' || month_days.x end, ''), '') || ']'
    from (select ${x} as x from json_each(${DAY_INDEXES})) as month_days)`;

/**
 * A load's changes to the facets kept by month alone ("k", `days` by lapse
 * day): each month's row takes its filings and its days' running totals
 * (keptRunning), and those under each industry term its filings' debtors
 * hold (`industries`: records.ts, lenderPlace, folded into the row of the
 * state's place). The change's own are worked out here; SQL adds them to
 * the row's day by day and keeps the sum the same way, so a change writes
 * one row a month of each facet it touches, and a row taken back to
 * nothing goes.
 */
function lenderMonthStatements(db: Db, days: FacetDay[]): Statement[] {
  const months = new Map<string, MonthChange>();
  for (const d of days) {
    const month = monthRow(d.day);
    const [place = d.place, term] = d.place.split(INDUSTRY_PLACE);
    const id = [place, d.name, d.facet, month].join("\u0000");
    let seen = months.get(id);
    if (!seen) {
      seen = { key: [place, d.name, d.facet, month], running: new Array<number>(MONTH_DAYS).fill(0), terms: new Map() };
      months.set(id, seen);
    }
    let running = seen.running;
    if (term !== undefined) {
      running = seen.terms.get(term) ?? new Array<number>(MONTH_DAYS).fill(0);
      seen.terms.set(term, running);
    }
    for (let i = Number(d.day.slice(8, 10)) - 1; i < MONTH_DAYS; i++) running[i] = (running[i] ?? 0) + d.filings;
  }
  const rows = [...months.values()]
    .filter((m) => m.running.some((n) => n !== 0) || [...m.terms.values()].some((r) => r.some((n) => n !== 0)))
    .map((m) => {
      const total = m.running[MONTH_DAYS - 1] ?? 0;
      const terms = [...m.terms]
        .filter(([, r]) => r.some((n) => n !== 0))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([term, r]) => `"${term}":${keptTerm(r, r[MONTH_DAYS - 1] ?? 0)}`);
      return [...m.key, total, keptRunning(m.running, total), terms.length > 0 ? `{${terms.join(",")}}` : null];
    });
  const statements: Statement[] = [];
  // The row's running totals and the change's, day by day, and their sum kept again (keptRunning) in one
  // pass: the sum runs up from 0 to the row's new filings, so its leading 0s are counted and the totals
  // between 0 and the filings are the ones kept. (Seeking the first and last kept in subqueries over the
  // days cost 1 ms a row; this, 0.1 ms.)
  const was = runningOn(t.sets, t.filings, sql`json_each.key`);
  const adds = runningOn(sql`excluded.sets`, sql`excluded.filings`, sql`json_each.key`);
  const total = sql`(${t.filings} + excluded.filings)`;
  const summed = keptAgain(sql`'['`, sql`${was} + ${adds}`, total);
  // The same for each industry term of the row's or the change's, kept in key order; a term taken back to
  // nothing goes, and no term at all leaves null. Each term's arrays are read out of the objects once: the
  // DISTINCT keeps SQLite from flattening `held` into the days' loop, which read them again for each day
  // (bench:writes 13.3 s where 7.3 s). A change under no term leaves the row's as they are, and a row with
  // none takes the change's.
  const termTotal = sql`(coalesce(held.was ->> 0, 0) + coalesce(held.adds ->> 0, 0))`;
  const termDays = keptAgain(
    sql`'[' || ${termTotal} || ','`,
    sql`${termOn(sql`held.was`, sql`json_each.key`)} + ${termOn(sql`held.adds`, sql`json_each.key`)}`,
    termTotal,
  );
  const industries = sql`case when excluded.industries is null then ${t.industries} when ${t.industries} is null then excluded.industries
    else (select nullif(json_group_object(terms.key, json(terms.days)), '{}') from (
      select held.key, ${termDays} as days from (
        select distinct terms.key, ${t.industries} -> ('$.' || terms.key) as was, excluded.industries -> ('$.' || terms.key) as adds from (
          select key from json_each(${t.industries}) union select key from json_each(excluded.industries)) as terms
      ) as held where ${termTotal} <> 0 order by held.key) as terms) end`;
  for (const part of chunk(rows, ROWS_PER_STATEMENT)) {
    const json = sql`json_each(${JSON.stringify(part)}) j`;
    statements.push(
      db
        .insert(t)
        .select(
          sql`select 'k', ${field(0)}, ${field(1)}, ${field(2)}, ${field(3)}, ${field(4)}, ${field(4)}, ${field(5)}, ${field(6)} from ${json} where true`,
        )
        .onConflictDoUpdate({
          target: [t.scope, t.place, t.name, t.facet, t.day],
          set: {
            filings: sql`${t.filings} + excluded.filings`,
            through: sql`${t.through} + excluded.filings`,
            sets: summed,
            industries,
          },
        }),
      db
        .delete(t)
        .where(
          and(
            eq(t.scope, "k"),
            eq(t.filings, 0),
            sql`(${t.place}, ${t.name}, ${t.facet}, ${t.day}) in (select ${field(0)}, ${field(1)}, ${field(2)}, ${field(3)} from ${json})`,
          ),
        ),
    );
  }
  return statements;
}

/**
 * Adds `days` (signed counts) to facet_counts and facet_tallies, and marks
 * stale the groups with rows after one changed. Facets and rows taken back
 * to nothing go, as if never counted.
 */
export function facetStatements(
  db: Db,
  days: FacetDay[],
  maxParams = D1_MAX_PARAMS,
  nameIdOf: NameIdOf = lookedUpName,
): Statement[] {
  const all = netted(days);
  const changed = all.filter((d): d is TallyDay => d.scope !== LAPSE_SETS);
  const statements: Statement[] = [
    ...lapseSetStatements(
      db,
      all.filter((d) => d.scope === LAPSE_SETS),
    ),
    ...lenderMonthStatements(
      db,
      changed.filter((d) => MONTHS_ALONE.has(d.scope)),
    ),
  ];
  const totals = new Map<
    string,
    { scope: TallyDay["scope"]; place: string; name: string; facet: string; filings: number; old: number }
  >();
  for (const d of changed) {
    // A lender's month under an industry is part of the month's own row (lenderMonthStatements): no total of its own.
    if (isIndustryPlace(d.place)) continue;
    const id = [d.scope, d.place, d.name, d.facet].join("\u0000");
    const old = d.day === OLD_DAYS ? d.filings : 0;
    const seen = totals.get(id);
    if (seen) {
      seen.filings += d.filings;
      seen.old += old;
    } else totals.set(id, { scope: d.scope, place: d.place, name: d.name, facet: d.facet, filings: d.filings, old });
  }
  // Eight values a row (every column: its aged filings are the refresh's), a lender facet's name id one
  // more (looked up: its words bound once).
  const counted = [...totals.values()].filter((c) => c.filings !== 0 || c.old !== 0);
  for (const part of chunk(counted, Math.floor(maxParams / 8))) {
    statements.push(
      db
        .insert(facetCounts)
        .values(part.map((c) => ({ ...c, aged: 0, ref: c.scope === "l" ? nameIdOf(c.name) : null })))
        .onConflictDoUpdate({
          target: [facetCounts.scope, facetCounts.place, facetCounts.name, facetCounts.facet],
          set: {
            filings: sql`${facetCounts.filings} + excluded.filings`,
            old: sql`${facetCounts.old} + excluded.old`,
            ref: sql`coalesce(${facetCounts.ref}, excluded.ref)`,
          },
        }),
    );
  }
  for (const part of chunk(tallyRows(changed), ROWS_PER_STATEMENT)) {
    const rows = JSON.stringify(
      part.map((d) => {
        const { from, to } = groupOf(d.scope, d.day);
        return [d.scope, d.place, d.name, d.facet, d.day, d.filings, from, to];
      }),
    );
    const json = sql`json_each(${rows}) j`;
    // A row's tally: its own plus what it adds, or, new, the last earlier row's of its group plus what it holds.
    // `column` of the last earlier row of the row's group.
    const rowBefore = (column: "through" | "sets") =>
      sql`(select p.${sql.raw(column)} from ${t} p where ${sameFacet("p")} and p.day < ${field(4)} and p.day >= ${field(6)} order by p.day desc limit 1)`;
    const before = rowBefore("through");
    // A new row of the "x" facet starts from the sets of the row before it, as they stood before the load:
    // the refresh adds the load's (lapse_set_changes) to both.
    const setsBefore = sql`case when ${field(0)} = 'x' then coalesce(${rowBefore("sets")}, '{}') end`;
    statements.push(
      db
        .insert(t)
        .select(
          sql`select ${field(0)}, ${field(1)}, ${field(2)}, ${field(3)}, ${field(4)}, ${field(5)}, ${field(5)} + coalesce(${before}, 0), ${setsBefore}, null
          from ${json} where true`,
        )
        .onConflictDoUpdate({
          target: [t.scope, t.place, t.name, t.facet, t.day],
          set: { filings: sql`${t.filings} + excluded.filings`, through: sql`${t.through} + excluded.filings` },
        }),
      // Groups with a row after one changed (the rows just written included) are stale from the first such row,
      // and so are a facet's days before the window its aged filings are of (a load whose clock is behind the daily job's).
      db
        .insert(staleTallies)
        .select(
          sql`select ${field(0)}, ${field(1)}, ${field(2)}, ${field(3)}, ${field(6)}, min(${field(4)}) from ${json}
            where exists (select 1 from ${t} n where ${sameFacet("n")} and n.day > ${field(4)} and n.day < ${field(7)})
              or (${field(0)} not in ${LAPSE_SQL} and ${field(4)} < ${windowFrom})
              or (${field(0)} = 'x' and ${field(5)} < 0)
            group by 1, 2, 3, 4, 5`,
        )
        .onConflictDoUpdate({
          target: [staleTallies.scope, staleTallies.place, staleTallies.name, staleTallies.facet, staleTallies.part],
          set: { day: sql`excluded.day` },
          setWhere: sql`excluded.day < ${staleTallies.day}`,
        }),
    );
    if (part.some((d) => d.filings < 0)) {
      // A row left at zero goes: its tally is the row before's, which every later row of its group reads the same.
      // The "x" facet's stay until the refresh, which reads their sets as they stood before the load (and marks
      // them stale above): a row taken away and made again within a load would start from the row before's.
      statements.push(
        db
          .delete(t)
          .where(
            and(
              eq(t.filings, 0),
              sql`${t.scope} <> 'x'`,
              sql`(${t.scope}, ${t.place}, ${t.name}, ${t.facet}, ${t.day}) in (select ${field(0)}, ${field(1)}, ${field(2)}, ${field(3)}, ${field(4)} from ${json})`,
            ),
          ),
      );
    }
  }
  const emptied = JSON.stringify(counted.filter((c) => c.filings < 0).map((c) => [c.scope, c.place, c.name, c.facet]));
  if (emptied !== "[]") {
    const listed = sql`(select ${field(0)}, ${field(1)}, ${field(2)}, ${field(3)} from json_each(${emptied}) j)`;
    statements.push(
      db
        .delete(facetCounts)
        .where(
          and(
            eq(facetCounts.filings, 0),
            sql`(${facetCounts.scope}, ${facetCounts.place}, ${facetCounts.name}, ${facetCounts.facet}) in ${listed}`,
          ),
        ),
      // And its days: a facet left with no filing can still have a day's row, of a filing counted there when
      // loaded and taken back in the old bucket once that day had left the window (its old count below zero).
      db
        .delete(t)
        .where(
          and(
            sql`(${t.scope}, ${t.place}, ${t.name}, ${t.facet}) in ${listed}`,
            sql`${t.scope} <> 'x'`,
            sql`not exists (select 1 from ${c} where ${c.scope} = ${t.scope} and ${c.place} = ${t.place} and ${c.name} = ${t.name} and ${c.facet} = ${t.facet})`,
          ),
        ),
    );
  }
  return statements;
}

/**
 * A load's changes to the "x" facet's sets (LAPSE_SETS days, records.ts):
 * added to lapse_set_changes, and the facet's month of days and its months
 * marked stale from each change's day, so that the refresh, which adds them
 * to those rows (tallyRefreshStatements), reads them.
 */
function lapseSetStatements(db: Db, changes: FacetDay[]): Statement[] {
  const statements: Statement[] = [];
  const c = lapseSetChanges;
  for (const part of chunk(changes, ROWS_PER_STATEMENT)) {
    const json = sql`json_each(${JSON.stringify(part.map((d) => [d.place, d.day, d.name, d.filings]))}) j`;
    statements.push(
      db
        .insert(c)
        .select(sql`select ${field(0)}, ${field(1)}, ${field(2)}, ${field(3)} from ${json} where true`)
        .onConflictDoUpdate({
          target: [c.place, c.day, c.letters],
          set: { filings: sql`${c.filings} + excluded.filings` },
        }),
      db
        .insert(staleTallies)
        .select(
          sql`select * from (
            select 'x', ${field(0)}, '', '', substr(${field(1)}, 1, 7), min(${field(1)}) from ${json} group by 2, 5
            union all
            select 'x', ${field(0)}, '', '', 'm', 'm' || min(substr(${field(1)}, 1, 7)) from ${json} group by 2
          ) where true`,
        )
        .onConflictDoUpdate({
          target: [staleTallies.scope, staleTallies.place, staleTallies.name, staleTallies.facet, staleTallies.part],
          set: { day: sql`excluded.day` },
          setWhere: sql`excluded.day < ${staleTallies.day}`,
        }),
    );
  }
  return statements;
}

/**
 * The sets of the "x" facet's row `d` (its place and day) with the load's
 * changes on its group's days through its own added (lapse_set_changes): a
 * day's row, its month's days through it; a month's row, every day of its
 * month and earlier ones. Built afresh in key order, without the sets at
 * zero, so that the same counts are the same text however the loads came.
 */
const setsWithChanges = sql.raw(`(
    select coalesce(json_group_object(k, n), '{}') from (
      select k, sum(n) as n from (
        select j.key as k, j.value as n from json_each(coalesce(d.sets, '{}')) j
        union all
        select l.letters, l.filings from lapse_set_changes l
        where d.day not like 'm%' and l.place = d.place and l.day >= substr(d.day, 1, 7) and l.day <= d.day
        union all
        select l.letters, l.filings from lapse_set_changes l
        where d.day like 'm%' and l.place = d.place and l.day < substr(d.day, 2) || '~'
      ) group by k having sum(n) <> 0 order by k
    ))`);

/**
 * Every row of the "x" facets' sets made from the stored filings (as
 * migration 0027 made them first), written where they differ: each live
 * filing that lapses, by the exact set of its debtors' industries when it
 * holds one or two; a day's row its month's filings through the day, a
 * month's row a running sum over the months of each set the state holds.
 */
const setsFromFilings = sql`insert into facet_tallies (scope, place, name, facet, day, filings, through, sets)
  with letters as (
    select distinct d.filing_id, ${industryLetterSql(sql.raw("d.industry"))} as letter
    from debtor_parties d join filings f on f.id = d.filing_id
    where letter is not null and f.terminated_at is null and f.lapse_date is not null
  ),
  filing_sets as (
    select filing_id, group_concat(letter, '') as letters
    from (select filing_id, letter from letters order by filing_id, letter)
    group by filing_id
  ),
  own as materialized (
    -- The day as text (CAST), as the tallies' days are: a join on it then uses an index.
    select f.state as place, cast(date(f.lapse_date * 86400, 'unixepoch') as text) as day,
      substr(date(f.lapse_date * 86400, 'unixepoch'), 1, 7) as month, s.letters, count(*) as n
    from filing_sets s join filings f on f.id = s.filing_id
    where length(s.letters) <= 2
    group by 1, 2, 3, 4
  ),
  x_rows as materialized (
    select place, day, case when day like 'm%' then substr(day, 2) else substr(day, 1, 7) end as month, sets
    from facet_tallies where scope = 'x' and name = '' and facet = ''
  ),
  monthly as materialized (select place, month, letters, sum(n) as n from own group by 1, 2, 3),
  month_sets as materialized (select distinct place, letters from monthly),
  cells as (
    select r.place, r.day, o.letters, sum(o.n) as n
    from x_rows r join own o on o.place = r.place and o.month = r.month and o.day <= r.day
    where r.day not like 'm%'
    group by 1, 2, 3
    union all
    select place, day, letters, n from (
      select r.place, r.day, m.letters,
        sum(coalesce(k.n, 0)) over (partition by r.place, m.letters order by r.day) as n
      from x_rows r
      join month_sets m on m.place = r.place
      left join monthly k on k.place = r.place and k.month = r.month and k.letters = m.letters
      where r.day like 'm%'
    ) where n > 0
  ),
  built as (
    select place, day, json_group_object(letters, n) as sets
    from (select * from cells order by place, day, letters)
    group by place, day
  )
  select 'x', r.place, '', '', r.day, 0, 0, coalesce(b.sets, '{}')
  from x_rows r left join built b on b.place = r.place and b.day = r.day
  where r.sets is not coalesce(b.sets, '{}')
  on conflict (scope, place, name, facet, day) do update set sets = excluded.sets`;

/**
 * SQL of each month of a work table of lender filings by day (`table`:
 * place, name, facet, day, n), grouped as `g`, and its days' running totals
 * as keptRunning keeps them: the index of its first day with a filing, then
 * the totals (each the month's filings through that day, read off the
 * table's index) from that day to the day before its last, none when they
 * are one day (as migrations 0030 and 0033 make them).
 */
const monthSets = (
  table: string,
) => `'[' || (CAST(substr(g.first, 9, 2) AS INTEGER) - 1) || CASE WHEN g.first < g.last THEN coalesce(',' || (
    SELECT group_concat((
      SELECT sum(l.n) FROM ${table} l
      WHERE l.place = g.place AND l.name = g.name AND l.facet = g.facet
        AND l.day > g.month AND l.day <= g.month || '-' || d.value
    ), ',')
    FROM json_each('["01","02","03","04","05","06","07","08","09","10","11","12","13","14","15","16","17","18","19","20","21","22","23","24","25","26","27","28","29","30","31"]') d
    WHERE g.month || '-' || d.value >= g.first AND g.month || '-' || d.value < g.last
  ), '') ELSE '' END || ']' AS sets
FROM (
  SELECT place, name, facet, substr(day, 1, 7) AS month, sum(n) AS n, min(day) AS first, max(day) AS last
  FROM ${table} GROUP BY place, name, facet, substr(day, 1, 7)
) g`;

/**
 * Every lender month ("k") made from the stored filings, as migration 0030
 * made them first: after a bulk load, which writes none of them as it goes
 * (a month row merged a batch at a time cost 7 times the filings' own
 * writing), so each month row is written once. Each lender name's filings
 * by lapse day are gathered in a work table off secured_parties_lapsing,
 * then each month's filings and running totals by day (keptRunning) read
 * off it, and it is dropped.
 */
const lenderMonthsFromFilings = [
  sql`delete from facet_tallies where scope = 'k'`,
  sql`delete from facet_counts where scope = 'k'`,
  sql.raw(`CREATE TABLE lender_lapses AS
WITH RECURSIVE own AS (
  SELECT filing_state AS place, name_id, lapses_on, count(DISTINCT filing_id) AS n
  FROM secured_parties WHERE lapses_on IS NOT NULL
  GROUP BY filing_state, name_id, lapses_on
),
parties AS (
  SELECT s.filing_state AS place, s.filing_id, s.lapses_on, n.words,
    substr(n.words, 1, instr(n.words || ' ', ' ') - 1) AS first
  FROM secured_parties s JOIN lender_names n ON n.id = s.name_id
  WHERE s.lapses_on IS NOT NULL AND s.filing_id IN (
    SELECT filing_id FROM secured_parties WHERE position > 0 AND lapses_on IS NOT NULL)
),
several AS (
  SELECT DISTINCT p.place, p.filing_id, p.lapses_on, p.words FROM parties p
  WHERE (p.filing_id, p.first) IN (
    SELECT filing_id, first FROM parties GROUP BY filing_id, first HAVING count(DISTINCT words) > 1)
),
prefixes (place, filing_id, lapses_on, prefix, rest) AS (
  SELECT place, filing_id, lapses_on, '', words || ' ' FROM several
  UNION ALL
  SELECT place, filing_id, lapses_on,
    prefix || CASE WHEN prefix = '' THEN '' ELSE ' ' END || substr(rest, 1, instr(rest, ' ') - 1),
    substr(rest, instr(rest, ' ') + 1)
  FROM prefixes WHERE rest <> ''
),
shared AS (
  SELECT place, prefix AS name, lapses_on, count(*) - 1 AS n
  FROM prefixes WHERE prefix <> ''
  GROUP BY place, filing_id, lapses_on, prefix HAVING count(*) > 1
)
SELECT place, name, facet, CAST(date(lapses_on * 86400, 'unixepoch') AS TEXT) AS day, sum(n) AS n FROM (
  SELECT o.place, l.words AS name, '' AS facet, o.lapses_on, o.n
  FROM own o JOIN lender_names l ON l.id = o.name_id
  UNION ALL
  SELECT place, name, '+', lapses_on, n FROM shared
)
GROUP BY place, name, facet, lapses_on`),
  sql.raw(`INSERT INTO facet_counts (scope, place, name, facet, filings, old, aged, ref)
SELECT 'k', place, name, facet, sum(n), 0, 0, NULL FROM lender_lapses GROUP BY place, name, facet`),
  sql.raw(`CREATE INDEX lender_lapses_day ON lender_lapses (place, name, facet, day, n)`),
  sql.raw(`INSERT INTO facet_tallies (scope, place, name, facet, day, filings, through, sets)
SELECT 'k', g.place, g.name, g.facet, 'm' || g.month, g.n, g.n, ${monthSets("lender_lapses")}`),
  sql.raw(`DROP TABLE lender_lapses`),
];

/**
 * Each lender month's filings under the industry terms their debtors hold
 * (records.ts, lenderPlace), from the stored filings, as migration 0033
 * makes them, after lenderMonthsFromFilings: gathered by lender, term and
 * day off secured_parties itself into a work table, then by month with
 * their running totals into a second, which every month row of the state
 * takes its terms from (`industries`, keptTerm).
 */
const lenderTermsFromFilings = [
  sql.raw(`CREATE TABLE lender_terms AS
WITH RECURSIVE bits (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM bits WHERE i < ${INDUSTRIES.length - 1}),
held AS (
  SELECT filing_state AS place, name_id, lapses_on, coalesce(debtor_industries, (
    SELECT sum(DISTINCT 1 << CAST(d.industry AS INTEGER)) FROM debtor_parties d
    WHERE d.filing_id = s.filing_id AND typeof(d.industry) IN ('integer', 'real')), 0) AS m,
    count(DISTINCT filing_id) AS n
  FROM secured_parties AS s NOT INDEXED WHERE lapses_on IS NOT NULL
  GROUP BY 1, 2, 3, 4
)
SELECT h.place || ':' || char(97 + a.i) || CASE WHEN b.i > a.i THEN char(97 + b.i) ELSE '' END AS place,
  l.words AS name, '' AS facet, CAST(date(h.lapses_on * 86400, 'unixepoch') AS TEXT) AS day, sum(h.n) AS n
FROM held h JOIN bits a ON (h.m >> a.i) & 1 JOIN bits b ON b.i >= a.i AND (h.m >> b.i) & 1
  JOIN lender_names l ON l.id = h.name_id
WHERE h.m <> 0
GROUP BY 1, 2, h.lapses_on`),
  sql.raw(`INSERT INTO lender_terms (place, name, facet, day, n)
WITH RECURSIVE bits (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM bits WHERE i < ${INDUSTRIES.length - 1}),
parties AS (
  SELECT s.filing_state AS place, s.filing_id, s.lapses_on, n.words,
    substr(n.words, 1, instr(n.words || ' ', ' ') - 1) AS first,
    coalesce(s.debtor_industries, (
      SELECT sum(DISTINCT 1 << CAST(d.industry AS INTEGER)) FROM debtor_parties d
      WHERE d.filing_id = s.filing_id AND typeof(d.industry) IN ('integer', 'real')), 0) AS m
  FROM secured_parties s JOIN lender_names n ON n.id = s.name_id
  WHERE s.lapses_on IS NOT NULL AND s.filing_id IN (
    SELECT filing_id FROM secured_parties WHERE position > 0 AND lapses_on IS NOT NULL)
),
several AS (
  SELECT DISTINCT p.place, p.filing_id, p.lapses_on, p.m, p.words FROM parties p
  WHERE p.m <> 0 AND (p.filing_id, p.first) IN (
    SELECT filing_id, first FROM parties GROUP BY filing_id, first HAVING count(DISTINCT words) > 1)
),
prefixes (place, filing_id, lapses_on, m, prefix, rest) AS (
  SELECT place, filing_id, lapses_on, m, '', words || ' ' FROM several
  UNION ALL
  SELECT place, filing_id, lapses_on, m,
    prefix || CASE WHEN prefix = '' THEN '' ELSE ' ' END || substr(rest, 1, instr(rest, ' ') - 1),
    substr(rest, instr(rest, ' ') + 1)
  FROM prefixes WHERE rest <> ''
),
shared AS (
  SELECT place, prefix AS name, lapses_on, m, count(*) - 1 AS n
  FROM prefixes WHERE prefix <> ''
  GROUP BY place, filing_id, lapses_on, m, prefix HAVING count(*) > 1
)
SELECT s.place || ':' || char(97 + a.i) || CASE WHEN b.i > a.i THEN char(97 + b.i) ELSE '' END,
  s.name, '+', CAST(date(s.lapses_on * 86400, 'unixepoch') AS TEXT), sum(s.n)
FROM shared s JOIN bits a ON (s.m >> a.i) & 1 JOIN bits b ON b.i >= a.i AND (s.m >> b.i) & 1
GROUP BY 1, 2, s.lapses_on`),
  sql.raw(`CREATE INDEX lender_terms_day ON lender_terms (place, name, facet, day, n)`),
  sql.raw(`CREATE TABLE term_months AS
SELECT g.place, g.name, g.facet, g.month, g.n, ${monthSets("lender_terms")}`),
  sql.raw(`CREATE INDEX term_months_key ON term_months (name, facet, month, place)`),
  sql.raw(`UPDATE facet_tallies SET industries = (
  SELECT nullif(json_group_object(substr(i.place, instr(i.place, ':') + 1), json('[' || i.n || ',' || substr(i.sets, 2))), '{}')
  FROM (
    SELECT place, n, sets FROM term_months
    WHERE name = facet_tallies.name AND facet = facet_tallies.facet AND month = substr(facet_tallies.day, 2)
      AND place > facet_tallies.place || ':' AND place < facet_tallies.place || ';'
    ORDER BY place
  ) i)
WHERE scope = 'k'`),
  sql.raw(`DROP TABLE term_months`),
  sql.raw(`DROP TABLE lender_terms`),
];

/** SQL naming the group of the row `day` of a facet of scope `scope` (groupOf): the first key of its range. */
const groupSql = (scope: string, day: string) =>
  sql.raw(
    `case when ${scope} in ${listOf(MONTHS_ALONE)} then ${day} when ${scope} not in ${listOf(BY_MONTH)} then ''
      when ${day} like 'm%' then 'm' else substr(${day}, 1, 7) end`,
  );

/** SQL of the key just past the group whose first key is `group` (groupOf). */
const groupEndSql = (group: string) =>
  sql.raw(`case ${group} when '' then '~' when 'm' then 'n' else ${group} || '~' end`);

/**
 * Statements that must run in the same batch (one transaction) as the
 * statement after them: a caller that splits its statements into batches
 * (load.ts, runBatches) never splits there.
 */
export const tiedToNext = new WeakSet<Statement>();

/**
 * The tallies of the stale groups recomputed from their first stale row
 * (the last earlier row's tally plus each row's filings), or, `all`, every
 * group's from its first row (after a bulk load); only the rows whose
 * tally moved are written. Then nothing is stale. The three statements
 * share a transaction (tiedToNext): a load's batch between the recompute
 * and the marks' deletion would have its marks deleted unread.
 */
export function tallyRefreshStatements(db: Db, all: boolean): Statement[] {
  const partition = sql`partition by d.scope, d.place, d.name, d.facet, ${groupSql("d.scope", "d.day")} order by d.day`;
  const tally = sql`sum(d.filings) over (${partition})`;
  // Each row's tally as it stands and as it should: the marks first (CROSS JOIN keeps them the outer
  // loop), then each marked group's rows from its mark on, by key.
  // The "x" facet's rows also take the load's changes to their sets; after a bulk load, every row's sets are
  // built again from the filings instead (setsFromFilings), which reads them once rather than a row at a time.
  const sets = all ? sql`d.sets` : sql`case when d.scope = 'x' then ${setsWithChanges} else d.sets end`;
  const fresh = all
    ? sql`select d.scope, d.place, d.name, d.facet, d.day, d.through, ${tally} as fresh, d.sets, ${sets} as fresh_sets from ${t} d`
    : sql`select d.scope, d.place, d.name, d.facet, d.day, d.through, s.base + ${tally} as fresh, d.sets, ${sets} as fresh_sets
        from (
          select q.scope, q.place, q.name, q.facet, q.part, q.day, coalesce((select p.through from ${t} p
            where p.scope = q.scope and p.place = q.place and p.name = q.name and p.facet = q.facet
              and p.day < q.day and p.day >= q.part
            order by p.day desc limit 1), 0) as base
          from ${staleTallies} q
        ) s
        cross join ${t} d on d.scope = s.scope and d.place = s.place and d.name = s.name and d.facet = s.facet
          and d.day >= s.day and d.day < ${groupEndSql("s.part")}`;
  const statements = [
    // Written as an upsert of rows that are there: the rows read drive it, each written by its key (an
    // UPDATE ... FROM lets SQLite walk the whole table instead).
    db.run(sql`insert into ${t} (scope, place, name, facet, day, filings, through, sets)
      select scope, place, name, facet, day, 0, fresh, fresh_sets from (${fresh}) where fresh <> through or fresh_sets is not sets
      on conflict (scope, place, name, facet, day) do update set through = excluded.through, sets = excluded.sets`),
    agedStatement(
      db,
      all
        ? undefined
        : sql`(${c.scope}, ${c.place}, ${c.name}, ${c.facet}) in (select scope, place, name, facet from ${staleTallies})`,
    ),
    // The "x" facet's rows a load left at zero (facetStatements), their sets read.
    db.run(
      all
        ? sql`delete from ${t} where scope = 'x' and filings = 0`
        : sql`delete from ${t} where scope = 'x' and filings = 0 and (scope, place, name, facet, day) in (
          select d.scope, d.place, d.name, d.facet, d.day from ${staleTallies} q join ${t} d on d.scope = q.scope
            and d.place = q.place and d.name = q.name and d.facet = q.facet and d.day >= q.day and d.day < ${groupEndSql("q.part")}
          where q.scope = 'x' and d.filings = 0)`,
    ),
    ...(all
      ? [
          db.run(setsFromFilings),
          ...[...lenderMonthsFromFilings, ...lenderTermsFromFilings].map((statement) => db.run(statement)),
        ]
      : []),
    db.delete(lapseSetChanges),
    db.delete(staleTallies),
  ];
  for (const statement of statements.slice(0, -1)) tiedToNext.add(statement);
  return statements;
}

/**
 * Each facet's (dated by filing or termination) filings on its days before
 * `day` (default: the marked window's first, tally_marks), into
 * facet_counts.aged: the facets `which` selects, or every one; written only
 * where it moved.
 */
function agedStatement(db: Db, which?: SQL, day: SQL | string = windowFrom) {
  const before = sql`coalesce((select p.through from ${t} p where p.scope = ${c.scope} and p.place = ${c.place}
    and p.name = ${c.name} and p.facet = ${c.facet} and p.day < ${day} order by p.day desc limit 1), 0)`;
  return db
    .update(c)
    .set({ aged: before })
    .where(and(sql`${c.scope} not in ${LAPSE_SQL}`, which, sql`${c.aged} <> ${before}`));
}

/**
 * The daily job's move of the recency window to start on `day`: the aged
 * filings of each facet with days between the window it held them for and
 * this one (those before a first run: every facet's), and the mark.
 */
export function windowStatements(db: Db, day: string): Statement[] {
  const from = sql`coalesce(${windowFrom}, '')`;
  const moved = sql`exists (select 1 from ${t} d where d.scope = ${c.scope} and d.place = ${c.place} and d.name = ${c.name}
    and d.facet = ${c.facet} and d.day >= min(${from}, ${day}) and d.day < max(${from}, ${day}))`;
  return [
    agedStatement(db, moved, day),
    db
      .insert(tallyMarks)
      .values({ id: 1, windowFrom: day })
      .onConflictDoUpdate({ target: tallyMarks.id, set: { windowFrom: sql`excluded.window_from` } }),
  ];
}
