/**
 * GET /filings/lapsing: a state's live filings whose lapse date falls in a
 * window, soonest first (then by number), optionally only those with a
 * debtor in given industries or a secured party of a name: a refinancing
 * lead list and a lender's continuation reminder.
 *
 * Each list is arms of index entries in list order (src/queries/filings.ts),
 * here by lapse date: the state's live filings (filings_state_lapsing), a
 * debtor industry's (debtor_parties_lapsing), a lender's
 * (secured_parties_lapsing, on the lapse date copied onto party rows) or a
 * lender's under an industry (lender_industry_lapses), so a page reads
 * about a page of entries.
 * - A lender name matches whole leading words, so a query covers every
 *   lender name under it: the first NAME_SLOTS of the state's lender names
 *   with lapsing filings (their "k" facets) get an ordered arm each and
 *   any beyond are merged by a walk as far as the page can need
 *   (lenderWalk): a broad name pays a row a name, not its filings in the
 *   window. By up to three industries the walk takes every name, under each
 *   industry.
 * - Counts (envelope A): the whole state's from its "x" facet (live
 *   filings by lapse day, schema.ts), four rows of its tallies; by industry
 *   from the same four rows' tallies by industry set, however many are asked
 *   (industriesBetween); a lender's from the "k" facet of each lender name
 *   under the name, its filings by lapse month (a row a month of the
 *   window, lenderBetween); by lender and one or two industries from the
 *   same rows' filings under each industry and pair (facet_tallies.
 *   industries, by inclusion-exclusion), and by three industries or more
 *   with the rare filings whose debtors hold three (severalBetween).
 *
 * Every range and count is a template (src/queries/db.ts): its text is
 * rendered once per isolate and form, and a request binds its state,
 * window, position and lender name (building the statements with Drizzle
 * on every request cost 0.3 to 0.9 ms of CPU).
 */
import { and, eq, gt, gte, lt, lte, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { INCLUDED_MAX, industryFacetName, industryLetter, SHARED_PREFIX } from "../db/records.ts";
import {
  debtorParties,
  facetCounts,
  facetTallies,
  filings,
  lenderIndustryLapses,
  lenderNames as lenderNamesTable,
  SEVERAL_INDUSTRIES,
  securedParties,
} from "../db/schema.ts";
import { MONTH_DAYS, monthRow, runningOn, termAt } from "../db/tallies.ts";
import { INDUSTRIES } from "../domain/industries.ts";
import { securedNameRange } from "../domain/names.ts";
import { type Holes, query, template } from "./db.ts";
import { arm, type CountedFilter, type ListedFilingWithParties, type ListPosition, NAME_SLOTS } from "./filings.ts";
import { between, windowSets } from "./tallies.ts";

/** A day (YYYY-MM-DD) as lapse dates are stored (a day number), as a template binds it. */
const dayNumber = (day: string) => Number(filings.lapseDate.mapToDriverValue(day));

/** An industry's stored code (src/db/encodings.ts, labelCode). */
function industryCode(industry: string): number {
  const code = debtorParties.industry.mapToDriverValue(industry);
  if (typeof code !== "number") throw new Error(`not an industry: ${industry}`);
  return code;
}

export interface LapsingQuery {
  state: string;
  /** First and last lapse day of the window (YYYY-MM-DD, inclusive). */
  from: string;
  to: string;
  industries?: string[] | undefined;
  securedParty?: string | undefined;
  /** Resume after this item (a cursor's position): the list runs soonest first, so after is above. */
  after?: ListPosition | undefined;
}

/** An item's place in a lapse list: its lapse date as stored (a day number) and its number. */
export function lapsePosition({ filing }: ListedFilingWithParties): ListPosition {
  return { at: Number(filings.lapseDate.mapToDriverValue(filing.lapseDate ?? "")), num: filing.number };
}

/**
 * A list's form in a template (src/queries/db.ts): from the window's first
 * day, or resumed above a position (the range then starts there: a second
 * lower bound could start it earlier).
 */
type Resumed = { resumed: boolean };

/** A window and position's values, as a template binds them: lapse days as stored, the position's unused as 0. */
type WindowValues = { state: string; from: number; to: number; at: number; num: string };

/** A column's rows of the window, after the position when resumed: a row value over the index's own columns, where SQLite starts the range. */
function inWindow(at: SQLiteColumn, num: SQLiteColumn, f: Resumed, v: Holes<WindowValues>): SQL | undefined {
  if (f.resumed) return and(lte(at, v.to), sql`(${at}, ${num}) > (${v.at}, ${v.num})`);
  return and(gte(at, v.from), lte(at, v.to));
}

/** The state's live filings lapsing in the window (filings_state_lapsing). */
const stateLapses = template("stateLapses", (f: Resumed, v: Holes<WindowValues>) =>
  query
    .select(arm(filings.lapseDate, filings.number, filings.id))
    .from(filings)
    .where(
      and(
        eq(filings.state, v.state),
        inWindow(filings.lapseDate, filings.number, f, v),
        sql`${filings.terminatedAt} is null`,
      ),
    )
    .getSQL(),
);

/**
 * A party table's filings of the state matching `where`, lapsing in the
 * window (its lapse index, on the lapse date copied onto party rows), each
 * filing once.
 */
function partyLapses(
  t: typeof debtorParties | typeof securedParties | typeof lenderIndustryLapses,
  where: SQL | undefined,
  f: Resumed,
  v: Holes<WindowValues>,
): SQL {
  return query
    .selectDistinct(arm(t.lapsesOn, t.filingNumber, t.filingId))
    .from(t)
    .where(and(eq(t.filingState, v.state), where, inWindow(t.lapsesOn, t.filingNumber, f, v)))
    .getSQL();
}

/**
 * The state's filings with a debtor in an industry, lapsing in the window
 * (debtor_parties_lapsing). The industry's code is written into the text
 * (a validated number; fifteen ranges bind fifteen fewer values).
 */
const industryLapses = template("industryLapses", (f: Resumed & { industry: number }, v: Holes<WindowValues>) =>
  partyLapses(debtorParties, sql`${debtorParties.industry} = ${sql.raw(String(f.industry))}`, f, v),
);

/** A lender list's values: the window and position, and the lender names under the name (`names` to `below`). */
type LenderWindowValues = WindowValues & { names: string; below: string };

/**
 * That a filing (of the secured party row in hand) has a debtor in one of
 * `industries` (codes, written into the text: validated), or no condition:
 * from the row's set of its debtors' industries (debtor_industries, a bit
 * per code), which D1 counts no row for when an index entry led to it;
 * a row stored before migration 0031 and not yet filled (db:rekey) seeks
 * the filing's debtors, about 2 rows more.
 */
const withDebtorIn = (industries: number[]) => {
  if (industries.length === 0) return undefined;
  // The set as the column stores it (a setMask over the codes' labels), so the bits are its own.
  const labels = industries.map((code) => debtorParties.industry.mapFromDriverValue(code));
  const mask = sql.raw(String(securedParties.debtorIndustries.mapToDriverValue(labels.join("|"))));
  const codes = sql.raw(industries.join(", "));
  return sql`((${securedParties.debtorIndustries} & ${mask}) <> 0 or (${securedParties.debtorIndustries} is null
    and exists (select 1 from ${debtorParties} d where d.filing_id = ${securedParties.filingId} and d.industry in (${codes}))))`;
};

/**
 * The state's lender names under the name, in name order (after `after`),
 * from its lender facets, each with its id (facetCounts.ref): a row a
 * debtor-type set a name's filings have (one to three), where a broad
 * name's are mostly one.
 */
const lenderNames = (v: Holes<LenderWindowValues>, after?: SQL) =>
  sql`select distinct ${facetCounts.name} as name, ${facetCounts.ref} as ref from ${facetCounts} where ${and(
    sql`${facetCounts.scope} = 'l'`,
    eq(facetCounts.place, v.state),
    gte(facetCounts.name, v.names),
    lt(facetCounts.name, v.below),
    after ? gt(facetCounts.name, after) : undefined,
  )} order by ${facetCounts.name}`;

/**
 * The i-th lender name under the name that has live filings with a lapse
 * date, as its words or its id: from the names' own "k" facets, one row a
 * name (their "l" facets are one a debtor-type set, up to three), and the
 * id from lender_names by its words, a row more. A name without such
 * filings lists nothing, so it takes no slot: the names past the last slot
 * (lenderWalk) are every name after it, as lenderNames lists them.
 */
const nameSlot = (v: Holes<LenderWindowValues>, i: number, column: "name" | "ref") => {
  const k = facetCounts;
  const name = sql`(select ${k.name} from ${k} where ${and(
    eq(k.scope, "k"),
    eq(k.place, v.state),
    gte(k.name, v.names),
    lt(k.name, v.below),
    eq(k.facet, ""),
  )} order by ${k.name} limit 1 offset ${sql.raw(String(i))})`;
  return column === "name"
    ? name
    : sql`(select ${lenderNamesTable.id} from ${lenderNamesTable} where ${lenderNamesTable.words} = ${name})`;
};

/**
 * Industries asked for up to which a lender's list reads its filings by
 * industry (lender_industry_lapses): a seek for each name and industry, and
 * for each filing taken, about a row a filing shown. Beyond, each of the
 * lender's entries is checked on its row's set (withDebtorIn): a seek for
 * each name, but a row for each of the lender's filings walked past, of any
 * industry, which by four or more industries are mostly a match. (At
 * 5,157,584 filings, `wells fargo` by three read 93 rows where 140; by
 * four, 112 where 93: docs/api/lapsing.md.)
 */
const BY_INDUSTRY_MOST = 3;

/** Whether a list by lender and `industries` (codes) reads lender_industry_lapses (BY_INDUSTRY_MOST). */
const byIndustry = (industries: number[]) => industries.length > 0 && industries.length <= BY_INDUSTRY_MOST;

/**
 * The state's filings of the lender names under a name (whole leading
 * words: `names` to `below`), lapsing in the window: NAME_SLOTS ordered
 * arms, a name each (a page merges any names beyond by lenderWalk), from
 * secured_parties_lapsing; by four industries or more (`industries`:
 * their codes) each entry checked on its row. By up to three (byIndustry)
 * none: the walk takes every name, under each industry, from
 * lender_industry_lapses (an arm a name and industry would bind their
 * window and name again each, past D1's 100 values, and read each name
 * again for each industry).
 */
const lenderLapses = template("lenderLapses", (f: Resumed & { industries: number[] }, v: Holes<LenderWindowValues>) =>
  byIndustry(f.industries)
    ? []
    : Array.from({ length: NAME_SLOTS }, (_, i) =>
        partyLapses(
          securedParties,
          and(eq(securedParties.nameId, nameSlot(v, i, "ref")), withDebtorIn(f.industries)),
          f,
          v,
        ),
      ),
);

/**
 * A page's arm of the lender names beyond the first NAME_SLOTS: their
 * ranges merged in list order by a recursive walk whose queue is ordered
 * (as src/queries/lenders.ts merges a lender search's), `reach` filings at
 * most. Each name's first entry in the window is one seek, and each filing
 * taken one more, so a broad name's page reads a row a name and a few a
 * filing, however long the window, where one sorted arm read every
 * filing of those names in it. By up to three industries (byIndustry) a
 * name's ranges are its own under each (lender_industry_lapses). An entry
 * is JSON: [sort key (lapse day, fixed width, then the number in hex, so
 * the text sorts in list order), name id, lapse day, number, filing id].
 */
const lenderWalk = template(
  "lenderWalk",
  (f: Resumed & { industries: number[] }, v: Holes<LenderWindowValues & { reach: number }>) => {
    const t = byIndustry(f.industries) ? lenderIndustryLapses : securedParties;
    const entry = sql`json_array(printf('%08d', ${t.lapsesOn}) || hex(${t.filingNumber}), ${t.nameId}, ${t.lapsesOn}, ${t.filingNumber}, ${t.filingId})`;
    const seek = (name: SQL, on: SQL | undefined, from: SQL | undefined) =>
      sql`(select ${entry} from ${t} where ${and(eq(t.filingState, v.state), eq(t.nameId, name), on, from)}
        order by ${t.lapsesOn}, ${t.filingNumber}, ${t.filingId} limit 1)`;
    // By industry, a name's next entry is the least of its next under each industry asked for (the
    // entries' text sorts in list order): one entry a name in the queue, and a filing of both once.
    const firstOf = (name: SQL, from: SQL | undefined) => {
      if (t !== lenderIndustryLapses) return seek(name, withDebtorIn(f.industries), from);
      const each = f.industries.map((code) => seek(name, eq(lenderIndustryLapses.industry, code), from));
      return each.length === 1
        ? (each[0] as SQL)
        : sql`(select min(e) from (${sql.join(
            each.map((one) => sql`select ${one} as e`),
            sql` union all `,
          )}))`;
    };
    const walk = sql.raw("walk.j");
    const at = (i: number) => sql.raw(`(walk.j ->> ${i})`);
    const next = firstOf(
      at(1),
      and(
        lte(t.lapsesOn, v.to),
        sql`(${t.lapsesOn}, ${t.filingNumber}, ${t.filingId}) > (${at(2)}, ${at(3)}, ${at(4)})`,
      ),
    );
    // By industry the walk takes every name (lenderLapses has no arms); else the names past the arms'.
    const beyond = lenderNames(v, t === lenderIndustryLapses ? undefined : nameSlot(v, NAME_SLOTS - 1, "name"));
    // A name with no filing in the window is left out of the queue: each entry queued is a row read
    // when the walk takes it, null or not (`the`, 551 names, most with none: 1,725 rows to 1,190). The
    // LIMIT keeps SQLite from flattening the subquery, which sought each name's entry twice (once to test).
    return sql`select at, num, fid from (with recursive walk(j) as (
        select j from (select ${firstOf(sql.raw("n.ref"), inWindow(t.lapsesOn, t.filingNumber, f, v))} as j from (${beyond}) as n limit -1) where j is not null
        union all
        select ${next} from walk where ${walk} is not null
        order by 1
      ) select distinct j ->> 2 as at, j ->> 3 as num, j ->> 4 as fid from walk where j is not null limit ${v.reach})`;
  },
);

/** A query's window and position, as a template binds them. */
const windowValues = (q: LapsingQuery): WindowValues => ({
  state: q.state,
  from: dayNumber(q.from),
  to: dayNumber(q.to),
  at: q.after?.at ?? 0,
  num: q.after?.num ?? "",
});

/** The list's index ranges (see above) of a list by state or industry, each in list order, from after `q.after`. */
function lapseArms(q: LapsingQuery): SQL[] {
  const values = windowValues(q);
  const f = { resumed: q.after !== undefined };
  const industries = q.industries ?? [];
  if (industries.length > 0) return industries.map((i) => industryLapses({ ...f, industry: industryCode(i) }, values));
  return [stateLapses(f, values)];
}

/** Live filings of a state lapsing on days `from` to `to`: its "x" facet's (tallies.ts). */
const liveBetween = template("liveBetween", (_: null, v: Holes<{ state: string; from: string; to: string }>) =>
  between({ scope: "x", place: v.state, name: "", facet: "" }, v.from, v.to),
);

/** A lapse window's months as a lender's facet keeps them (src/db/tallies.ts), and its ends' days in them. */
type WindowMonths = {
  /** The month rows of the window's first and last days ("m" and the month). */
  fromMonth: string;
  toMonth: string;
  /** The indexes into their running totals of the day before the first (-1 before the 1st) and of the last day. */
  before: number;
  through: number;
};

/** `from` to `to` (YYYY-MM-DD) as WindowMonths. */
const windowMonths = (from: string, to: string): WindowMonths => ({
  fromMonth: monthRow(from),
  toMonth: monthRow(to),
  before: Number(from.slice(8, 10)) - 2,
  through: Number(to.slice(8, 10)) - 1,
});

/** The industry terms a lender's count reads, each with its sign (industryTermsOf), or none: every filing. */
type Terms = readonly (readonly [string, 1 | -1])[] | null;

/**
 * Live filings of a state lapsing on days `from` to `to` with a lender
 * name under a name (whole leading words: `names` to `below`): the "k"
 * facet of each such name (its live filings by lapse month, schema.ts),
 * less the filings that two or more of them share, weighted by how many
 * less one (the name's own "k" facet SHARED_PREFIX, when there is one).
 * Each facet reads its rows of the window's months: a whole month its
 * filings, the first and last their running totals by day (`sets`,
 * keptRunning in src/db/tallies.ts) at the window's ends. Seven rows a
 * facet for six months, whatever its filings. With `terms`, the same rows'
 * filings under those industry terms (`industries`, keptTerm), each with
 * its sign: the terms are JSON paths in a VALUES list, which D1 counts no
 * row for, and the window is bound once however many there are.
 */
const lenderBetween = template(
  "lenderBetween",
  (terms: Terms, v: Holes<{ state: string; names: string; below: string } & WindowMonths>) => {
    const k = alias(facetCounts, "k");
    const t = facetTallies;
    // D1 binds a number as a REAL: the indexes are made integers again for the JSON paths.
    const through = sql`cast(${v.through} as integer)`;
    const before = sql`cast(${v.before} as integer)`;
    const inMonths = (on: (index: SQLWrapper) => SQL, all: SQL) =>
      sql`(case when ${t.day} = ${v.toMonth} then ${on(through)} else ${all} end) - (case when ${t.day} = ${v.fromMonth} then ${on(before)} else 0 end)`;
    let filings = inMonths((index) => runningOn(t.sets, t.filings, index), sql`${t.filings}`);
    if (terms !== null) {
      // Each term of the row (validated letters, written into the text) between the days before the
      // window's first and its last in this month (-1 and 30 for a whole month). The row's own values are
      // named once in a subquery over the terms: SQLite refuses an expression more than 100 deep, counted
      // through subqueries, and a later page's statement holds the count.
      const paths = terms.map(([term, sign]) => `('$.${term}', ${sign})`).join(", ");
      const hi = sql`(case when ${t.day} = ${v.toMonth} then ${through} else ${sql.raw(String(MONTH_DAYS - 1))} end)`;
      const lo = sql`(case when ${t.day} = ${v.fromMonth} then ${before} else -1 end)`;
      const [h, a, b] = [sql.raw("m.h"), sql.raw("m.hi"), sql.raw("m.lo")];
      filings = sql`(select sum(m.sign * (${termAt(h, a)} - ${termAt(h, b)})) from (
        select p.column2 as sign, ${t.industries} -> p.column1 as h, ${hi} as hi, ${lo} as lo from (values ${sql.raw(paths)}) as p) as m)`;
    }
    const inWindow = query
      .select({ filings: sql<number>`coalesce(sum(${filings}), 0)` })
      .from(t)
      .where(
        and(
          eq(t.scope, k.scope),
          eq(t.place, k.place),
          eq(t.name, k.name),
          eq(t.facet, k.facet),
          gte(t.day, v.fromMonth),
          lte(t.day, v.toMonth),
        ),
      );
    const sign = sql`case when ${k.facet} = '' then 1 else -1 end`;
    return query
      .select({ total: sql<number>`coalesce(sum(${sign} * (${inWindow})), 0)` })
      .from(k)
      .where(
        and(
          eq(k.scope, "k"),
          eq(k.place, v.state),
          gte(k.name, v.names),
          lt(k.name, v.below),
          sql`(${k.facet} = '' or (${k.facet} = ${SHARED_PREFIX} and ${k.name} = ${v.names}))`,
        ),
      )
      .getSQL();
  },
);

/**
 * What a count by three industries or more adds to lenderBetween's: its
 * terms count a filing with a debtor in m of the industries asked for
 * m - m(m - 1)/2 times (industryTermsOf), once for m of 1 or 2, so one
 * with m of 3 or more is counted (m - 1)(m - 2)/2 times too few. Such
 * filings are rare, and they alone are entered in
 * secured_parties_lapsing_several: each lender name under the name (a row
 * of its "l" facets) seeks its own there, a row or two a name, and each
 * such filing in the window is a row. `masks`: each industry's bit
 * (debtor_industries), written into the text.
 */
const severalBetween = template("severalBetween", (masks: number[], v: Holes<LenderWindowValues>) => {
  const sp = securedParties;
  const m = sql.raw(balancedSum(masks.map((mask) => `((s.debtor_industries & ${mask}) <> 0)`)));
  return sql`(select coalesce(sum((several.m - 1) * (several.m - 2) / 2), 0) from (
      select distinct s.filing_id, ${m} as m from (${lenderNames(v)}) as n
      cross join ${sp} as s on s.filing_state = ${v.state} and s.name_id = n.ref
        and s.lapses_on >= ${v.from} and s.lapses_on <= ${v.to} and s.lapses_on is not null and ${SEVERAL_INDUSTRIES}
    ) as several where several.m >= 3)`;
});

/** The lender names a secured party query covers, as a lapse list binds them (securedNameRange). */
function lenderRange(securedParty: string): { names: string; below: string } {
  const { from, to } = securedNameRange(securedParty);
  return { names: from, below: to };
}

export function lapsing(q: LapsingQuery): CountedFilter {
  if (q.securedParty) return lenderLapsing(q, q.securedParty);
  const industries = q.industries ?? [];
  const window = { state: q.state, from: q.from, to: q.to };
  const total =
    industries.length > 0 ? industriesBetween(industriesAsked(industries), window) : liveBetween(null, window);
  return { arms: lapseArms(q), count: sql`select ${total} as total`, ascending: true };
}

/** `terms` added as a balanced tree: SQLite refuses an expression more than 100 deep, counted through subqueries. */
function balancedSum(terms: string[]): string {
  if (terms.length <= 2) return terms.join(" + ");
  const half = Math.ceil(terms.length / 2);
  return `(${balancedSum(terms.slice(0, half))}) + (${balancedSum(terms.slice(half))})`;
}

/**
 * The terms of a count by industries (letters, in order) by
 * inclusion-exclusion, each with its sign: each industry's filings, less
 * each pair's. A filing with a debtor in one or two of them is so counted
 * once; one in three or more is made up by severalBetween.
 */
function industryTermsOf(letters: string[]): [string, 1 | -1][] {
  return [
    ...letters.map((a): [string, 1] => [a, 1]),
    ...letters.flatMap((a, i) => letters.slice(i + 1).map((b): [string, -1] => [`${a}${b}`, -1])),
  ];
}

/**
 * A lapse list by lender: the first NAME_SLOTS names' arms and the walk of
 * the rest (lenderWalk), counted from the lenders' months (lenderBetween),
 * by lender and industries from their months under each industry and pair
 * (records.ts, lenderPlace) by inclusion-exclusion, and by three
 * industries or more with the rare filings whose debtors hold three of
 * them (severalBetween).
 */
function lenderLapsing(q: LapsingQuery, securedParty: string): CountedFilter {
  const industries = (q.industries ?? []).map(industryCode);
  const f = { resumed: q.after !== undefined, industries };
  const values = { ...windowValues(q), ...lenderRange(securedParty) };
  const letters = industriesAsked(q.industries ?? []);
  const terms = industries.length === 0 ? null : industryTermsOf(letters);
  const months = lenderBetween(terms, {
    state: q.state,
    names: values.names,
    below: values.below,
    ...windowMonths(q.from, q.to),
  });
  const masks = [...new Set(industries)].map((code) => industryMask(code));
  const total = masks.length < 3 ? sql`(${months})` : sql`(${months}) + ${severalBetween(masks, values)}`;
  return {
    arms: lenderLapses(f, values),
    walk: (reach) => lenderWalk(f, { ...values, reach }),
    count: sql`select ${total} as total`,
    ascending: true,
  };
}

/** An industry's bit in a secured party row's debtor_industries (a set of one, as the column stores it). */
function industryMask(code: number): number {
  return Number(securedParties.debtorIndustries.mapToDriverValue(debtorParties.industry.mapFromDriverValue(code)));
}

/** The letters of the industries asked for, each once, in order (src/db/records.ts, industryLetter). */
const industriesAsked = (industries: string[]) =>
  [...new Set(industries.map(industryLetter))].filter((l): l is string => l !== undefined).sort();

/** Every industry's letter, in order (src/db/records.ts, industryLetter). */
const LETTERS = INDUSTRIES.map((i) => industryLetter(i) ?? "");

/**
 * Live filings of `state` lapsing on days `from` to `to` with a debtor in
 * one of `industries` (letters), from the state's "x" facet: each of its
 * rows holds its tally by exact set of one or two industries (schema.ts,
 * facet_tallies.sets), so the count is the window's filings of every such
 * set that holds one asked for, read from the four rows a window's count
 * reads (two within one month: src/queries/tallies.ts, windowSets), however
 * many industries are asked. The sets are JSON paths in a VALUES list,
 * which D1 does not count as rows read (json_each would be a row a set).
 * A filing with three industries or more, rare, is counted from its exact
 * set's "y" facet: each such set of the state is looked at (a row), and
 * its tallies read (four rows) when it holds one asked for.
 * The sets are written into the text (validated letters) and the window
 * bound once, so any number of industries stays within D1's 100 bound
 * parameters.
 */
const industriesBetween = template(
  "industriesBetween",
  (asked: string[], v: Holes<{ state: string; from: string; to: string }>): SQL<number> => {
    if (asked.length === 0) return sql<number>`0`;
    const holds = (set: string) => [...set].some((letter) => asked.includes(letter));
    const sets = [...LETTERS, ...LETTERS.flatMap((a, i) => LETTERS.slice(i + 1).map((b) => `${a}${b}`))].filter(holds);
    const paths = sql.raw(`(values ${sets.map((set) => `('$.${set}')`).join(", ")}) as p`);
    const ends = windowSets({ scope: "x", place: sql`w.place`, name: "", facet: "" }, sql`w.since`, sql`w.through`);
    const held = (end: string) => sql.raw(`total(s.${end} ->> p.column1)`);
    const summed = sql`(select cast(${held("to_months")} + ${held("to_days")} - ${held("before_months")} - ${held("before_days")} as integer) from ${paths})`;
    // Larger sets: each one holding any asked for, once.
    const holding = sql.raw(asked.map((letter) => `(instr(c.facet, '${letter}') > 0)`).join(" or "));
    const inWindow = between(
      { scope: "y", place: sql`w.place`, name: sql`c.name`, facet: sql`c.facet` },
      sql`w.since`,
      sql`w.through`,
    );
    const larger = sql`(select coalesce(sum(${inWindow}), 0) from ${facetCounts} c
      where c.scope = 'y' and c.place = w.place and c.name > ${industryFacetName("e", INCLUDED_MAX)} and c.name < 'f' and (${holding}))`;
    // The rows' sets are read once (a materialized CTE: a subquery flattened into the VALUES list's loop
    // would read them again for each set), then the VALUES list runs over them.
    return sql<number>`(with s as materialized (
      select ${ends.toMonths} as to_months, ${ends.toDays} as to_days, ${ends.beforeMonths} as before_months,
        ${ends.beforeDays} as before_days, ${larger} as larger
      from (select ${v.state} as place, ${v.from} as since, ${v.to} as through) as w)
    select ${summed} + s.larger from s)`;
  },
);
