/**
 * Queries behind the filing lists (/filings/*, /secureds/*, /debtors/search and GET /filings).
 *
 * Work per request grows with the page, not with the data:
 * - A list is one or more "arms": index ranges that yield (filed_at,
 *   number, filing id) in list order, newest first. Several arms (one per
 *   industry asked for, one per lender name) merge in order through a
 *   compound SELECT (SQLite's MERGE (UNION), which also drops a filing met
 *   twice), so page N reads about N pages of index entries, never the
 *   whole range.
 * - Counts for total_pages come from precomputed totals (facet_counts and
 *   facet_tallies, see schema.ts and tallies.ts; debtor_names for a
 *   debtor's filings): a few rows per facet matched, whatever the number of
 *   filings.
 * - A page is one D1 batch: the page, its debtors and secured parties (the
 *   page ids are a subquery of each), and the count, or the amendments and
 *   data-load time for envelope B. Lender search (src/queries/lenders.ts)
 *   merges its lender names inside one statement instead of arms.
 * - A list resumes below a position (ListPosition: the last item's time
 *   and number, from a cursor): each arm starts its index range there,
 *   so a page read that way costs what page 1 does, however deep. A page
 *   asked by number reads its offset's entries first; one past the end
 *   reads none (its limit is zero when the count says so).
 *
 * test/query-plans checks every statement with EXPLAIN QUERY PLAN, and
 * test/bounded-work that rows read do not grow with the data.
 */
import {
  and,
  eq,
  getTableColumns,
  getTableName,
  gt,
  gte,
  inArray,
  lt,
  or,
  type SQL,
  type SQLWrapper,
  sql,
} from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { D1_MAX_PARAMS, MAX_COMPOUND } from "../db/database.ts";
import { type LISTED_AMENDMENT, type LISTED_DEBTOR, type LISTED_SECURED, listedColumns } from "../db/listed.ts";
import { ANY_FACET, INCLUDED_MAX, industryFacetName, industryLetter } from "../db/records.ts";
import {
  type Amendment,
  amendments,
  type DebtorParty,
  dataLoads,
  debtorLinks,
  debtorNames,
  debtorParties,
  type Filing,
  facetCounts,
  filings,
  lenders,
  type SecuredParty,
  securedParties,
  stateLoads,
} from "../db/schema.ts";
import { INDUSTRIES } from "../domain/industries.ts";
import type { PartyType } from "../domain/kinds.ts";
import { debtorQuery, securedNameRange } from "../domain/names.ts";
import { type Db, decoded, frozen, type Holes, query, rendered, template } from "./db.ts";
import { type SpanForm, spanForms, spansIn, spansMatch, spanWhere } from "./nameMatch.ts";
import { filedSince, sinceFromCounts } from "./tallies.ts";

/** An index range in list order: `at` (filing or termination time), `num`, `fid`. */
type Arm = SQL;

/** How a list is sourced and ordered. */
export interface FilingFilter {
  arms: Arm[];
  /**
   * One arm more that must know how many rows a page can need (`reach`):
   * a walk over many ranges that would otherwise be read whole (a lapse
   * list's lender names beyond the first few, src/queries/lapsing.ts).
   */
  walk?: (reach: number) => Arm;
  /** Whether the list is ordered by termination rather than filing time. */
  byTermination?: boolean;
  /** Whether the list runs oldest (soonest) first: a lapse list (src/queries/lapsing.ts). Lists are newest first. */
  ascending?: boolean;
}

/** A list that can also be counted, for envelope A's `pagination`. */
export interface CountedFilter extends FilingFilter {
  /** The number of matches, or a statement whose `total` is. */
  count: SQL | number;
}

/**
 * `filter` with no end check on its pages (rowLimit): a shard's part of a
 * merged page, whose offset is into that shard's list and whose end the
 * merged count has settled. A known count adds no check; its page's total
 * reads 0.
 */
export const withoutEndCheck = (filter: FilingFilter): CountedFilter => ({ ...filter, count: 0 });

export interface PageWindow {
  page: number;
  size: number;
  /**
   * Rows of the list before this window (windowOf): (page - 1) * size for a
   * page asked by number; a list resumed below a position starts at 0; a
   * shard's part of a merged page starts anywhere.
   */
  offset: number;
}

/**
 * The window of a page asked by number, or resumed by a cursor (`after`,
 * its position), which starts the page: a numbered page starts at its
 * offset, a resumed one where its position falls in what is read,
 * `offsetOf(after)`: 0 for a list read from below the position (default).
 */
export function windowOf<P>(
  { page, after }: { page: number; after?: P | undefined },
  size: number,
  offsetOf: (after: P) => number = () => 0,
): Required<PageWindow> {
  return { page, size, offset: after === undefined ? (page - 1) * size : offsetOf(after) };
}

/**
 * A place in a filing list, newest first: an item's list time as stored
 * (seconds) and number, which name one filing of a state; with its filing
 * id in a list spanning states, whose filings of one time and number the
 * id orders. The list resumes below it.
 */
export interface ListPosition {
  at: number;
  num: string;
  fid?: number | undefined;
}

/**
 * The position of `item` in a list of one state (by termination time for
 * /filings/recently-terminated): no id, so a cursor outlives a reload of
 * the state, which numbers its filings anew.
 */
export function positionOf({ filing }: ListedFilingWithParties, byTermination = false): ListPosition {
  const at = byTermination ? filing.terminatedAt : filing.filedAt;
  return { at: Number(filings.filedAt.mapToDriverValue(at ?? "")), num: filing.number };
}

/**
 * A list position's form in a template (src/queries/db.ts): none (the
 * list's start), time and number, or time, number and filing id.
 */
export type Below = "start" | "number" | "id";

/** A position's values, as a template binds them (unused ones as 0). */
export type PositionValues = { at: number; num: string; fid: number };

/** The form and values of `after` for a template. */
export function positionIn(after: ListPosition | undefined): { below: Below; position: PositionValues } {
  const below: Below = after === undefined ? "start" : after.fid === undefined ? "number" : "id";
  return { below, position: { at: after?.at ?? 0, num: after?.num ?? "", fid: after?.fid ?? 0 } };
}

/**
 * Rows below a position in list order (`p`: its holes, `form`: which of
 * them). A row value over the index's own columns: SQLite starts the range
 * there (lenders.ts walks keys alike).
 */
export function below(at: SQLiteColumn, num: SQLiteColumn, fid: SQLiteColumn, form: Below, p: Holes<PositionValues>) {
  if (form === "start") return undefined;
  if (form === "number") return sql`(${at}, ${num}) < (${p.at}, ${p.num})`;
  return sql`(${at}, ${num}, ${fid}) < (${p.at}, ${p.num}, ${p.fid})`;
}

/** The selection of an arm: list time, filing number, filing id. */
export function arm(at: SQLiteColumn, num: SQLiteColumn, fid: SQLiteColumn) {
  return { at: sql<string>`${at}`.as("at"), num: sql<string>`${num}`.as("num"), fid: sql<number>`${fid}`.as("fid") };
}

/** Filings matching `where`, below a position, listed by filing time (or `at`, a termination time). */
const filingArm = (where: SQL | undefined, form: Below, p: Holes<PositionValues>, at: SQLiteColumn = filings.filedAt) =>
  query
    .select(arm(at, filings.number, filings.id))
    .from(filings)
    .where(and(where, below(at, filings.number, filings.id, form, p)))
    .getSQL();

const debtorArm = (where: SQL | undefined, form: Below, p: Holes<PositionValues>) => {
  const { filedAt, filingNumber, filingId } = debtorParties;
  return query
    .selectDistinct(arm(filedAt, filingNumber, filingId))
    .from(debtorParties)
    .where(and(where, below(filedAt, filingNumber, filingId, form, p)))
    .getSQL();
};

/** A filing time as stored (seconds): what a template binds for a hole compared with filed_at or terminated_at. */
const storedInstant = (iso: string) => Number(filings.filedAt.mapToDriverValue(iso));
/** An industry as stored (its code), likewise. */
const storedIndustry = (industry: string) => Number(debtorParties.industry.mapToDriverValue(industry));

/** A label as a stored set ("A|B") holds it: between bars, as setIncludes looks for it. */
export const setMember = (label: string) => `|${label}|`;

/** Whether a stored set ("A|B") includes the label `member` is (setMember). */
export const setIncludes = (column: SQLiteColumn, member: SQLWrapper | string) =>
  sql`instr('|' || ${column} || '|', ${member}) > 0`;

/** Whether a stored set ("A|B") includes any of `members`. */
export function setIncludesAny(column: SQLiteColumn, members: readonly (SQLWrapper | string)[]): SQL | undefined {
  if (members.length === 0) return undefined;
  return or(...members.map((m) => setIncludes(column, m)));
}

/** The facets a count covers (see facetCounts in schema.ts): its scope, and whether a range of lender names. */
type FacetForm = {
  scope: (typeof facetCounts.$inferSelect)["scope"];
  names: boolean;
};

/** Their values: the place, lender names from `from` to `to` or the one name `name`, and set members (setMember). */
type FacetValues = { place: string; name: string; from: string; to: string; members: string[] };

/**
 * A facet's filings since a day (`since`), from its totals (tallies.ts):
 * of the facet `key` names, or by default of the facet_counts row in hand.
 */
function facetSince(since: SQLWrapper, key?: { scope: IndustryScope; name: SQL; facet: SQL; place: SQLWrapper }): SQL {
  return key ? filedSince(key, since) : sinceFromCounts(facetCounts, since);
}

/**
 * Filings of the facets of a scope at a place (lender names in a range,
 * facet sets including one of the members) since a day.
 */
function facetTotalOf(f: FacetForm, v: Holes<FacetValues & { since: string }>): SQL {
  return query
    .select({ total: sql<number>`coalesce(sum(${facetSince(v.since)}), 0)`.as("total") })
    .from(facetCounts)
    .where(facetsOf(f, v))
    .getSQL();
}

/** A count of facets (facetTotalOf) since a day (YYYY-MM-DD). */
const facetTotal = template("facetTotal", facetTotalOf);

/** The values of a count of the one name `name`'s facets, or a place's with no name. */
const facetValues = (place: string, members: string[] = [], name = ""): FacetValues => ({
  place,
  name,
  from: "",
  to: "",
  members,
});

/**
 * The facets of a scope at a place whose lender name is in a range (or is
 * the one name) and whose set includes one of the members; without
 * members, a state's or postal code's one facet that counts all its filings
 * (ANY_FACET, never an industry).
 */
function facetsOf(f: FacetForm, v: Holes<FacetValues>) {
  const everyIndustry = v.members.length === 0 && (f.scope === "s" || f.scope === "z");
  return and(
    eq(facetCounts.scope, f.scope),
    eq(facetCounts.place, v.place),
    // Facets other than a lender's have the name "": saying so lets the
    // primary key reach the facet itself rather than walk the place's.
    f.names ? and(gte(facetCounts.name, v.from), lt(facetCounts.name, v.to)) : eq(facetCounts.name, v.name),
    everyIndustry ? eq(facetCounts.facet, ANY_FACET) : setIncludesAny(facetCounts.facet, v.members),
  );
}

/** The scopes whose facets are kept by industry set: a state ("s") and a debtor's ZIP5 ("z"). */
type IndustryScope = "s" | "z";

/**
 * Filings of a place (a state, or a ZIP5 and its debtors there) since a
 * day with a debtor in one of the asked industries, from the place's
 * industry facets (records.ts, industryFacets), reading a number of
 * facets set by how many industries are asked for, never by the data:
 * - up to half the industries (`direct`): each one's "i1" facet, minus
 *   each pair's "i2" facet (inclusion-exclusion: a filing with two of them
 *   is in two "i1" facets and one "i2" facet);
 * - more: every filing ("*") minus the exact facets of the sets of at most
 *   two industries that avoid them all (no industry, one, or a pair).
 * A filing with more than INCLUDED_MAX industries is counted right by the
 * first rule only when at most two of them were asked for, and by the
 * second only when it holds one of them; the exact facets of such sets
 * (rare: none in the seeded data, few in a state) are looked at one by one
 * (a row each), and the tallies of those miscounted read and weighted to
 * make up the difference (`larger`). Only a set that holds three of the
 * asked industries, or avoids all of them, is miscounted, and only a count
 * of three or more industries (or of all but three or more) looks.
 */
const industryTotal = template(
  "industryTotal",
  (
    f: { direct: boolean; larger: boolean; scope: IndustryScope },
    v: Holes<{ place: string; since: string; sets: string[]; asked: string[] }>,
  ) => {
    // The sets whose facets are summed, one bound parameter each: a VALUES
    // list, which (unlike json_each) D1 does not count as rows read. A set's
    // facet name follows from its size (records.ts, industryFacetName).
    const size = sql`length(term.column1)`;
    const facetOf = (prefix: "e" | "i") =>
      facetSince(v.since, {
        scope: f.scope,
        place: v.place,
        name: sql`${prefix} || ${size}`,
        facet: sql`term.column1`,
      });
    const terms = sql`(values ${sql.join(
      v.sets.map((set) => sql`(${set})`),
      sql`, `,
    )}) as term`;
    // Direct: + each industry, - each pair. Else: - each set avoiding them.
    const summed = f.direct
      ? query.select({ total: sql<number>`coalesce(sum((3 - 2 * ${size}) * ${facetOf("i")}), 0)` }).from(terms)
      : query.select({ total: sql<number>`-coalesce(sum(${facetOf("e")}), 0)` }).from(terms);
    const none = sql`${""}`;
    const every = f.direct
      ? sql`0`
      : sql`(${facetTotalOf({ scope: f.scope, names: false }, { place: v.place, name: none, from: none, to: none, members: [], since: v.since })})`;
    // Larger sets: how many of the asked industries each holds, and what the terms above missed.
    const held = sql.join(
      v.asked.map((letter) => sql`(instr(${facetCounts.facet}, ${letter}) > 0)`),
      sql` + `,
    );
    // Direct: the terms counted a set holding m of them m - m(m-1)/2 times, not once.
    const weight = f.direct
      ? sql`(select case when m = 0 then 0 else 1 - m + m * (m - 1) / 2 end from (select ${held} as m))`
      : sql`-(${held} = 0)`;
    const larger = !f.larger
      ? sql`0`
      : query
          .select({ total: sql<number>`coalesce(sum(${weight} * ${facetSince(v.since)}), 0)` })
          .from(facetCounts)
          .where(
            and(
              eq(facetCounts.scope, f.scope),
              eq(facetCounts.place, v.place),
              gt(facetCounts.name, industryFacetName("e", INCLUDED_MAX)),
              lt(facetCounts.name, "f"),
              // Only the sets the terms above miscounted: a facet's tallies are read only for those.
              f.direct ? sql`${held} >= 3` : sql`${held} = 0`,
            ),
          );
    return query
      .select({ total: sql<number>`${every} + (${summed}) + (${larger})`.as("total") })
      .from(sql`(select 1)`)
      .getSQL();
  },
);

/** A count of `industries`' filings at `place` (a state, or a ZIP5: `scope`) since `since` (industryTotal). */
function industryCount(scope: IndustryScope, place: string, industries: string[], since: string): SQL {
  const asked = [...new Set(industries.map((i) => industryLetter(i) ?? ""))].filter((l) => l !== "").sort();
  const others = INDUSTRIES.map((i) => industryLetter(i) ?? "").filter((l) => !asked.includes(l));
  const pairs = (letters: string[]) => letters.flatMap((a, i) => letters.slice(i + 1).map((b) => `${a}${b}`));
  const direct = asked.length <= INDUSTRIES.length / 2;
  const sets = direct ? [...asked, ...pairs(asked)] : ["", ...others, ...pairs(others)];
  // A set of more than INCLUDED_MAX needs weighing only when it can hold that many asked (or avoided) industries.
  const larger = (direct ? asked : others).length > INCLUDED_MAX;
  return industryTotal({ direct, larger, scope }, { place, since: dayOf(since), sets, asked });
}

/** The day of a time (YYYY-MM-DD), as facet_tallies holds days. */
const dayOf = (iso: string) => iso.slice(0, 10);

/** Filings of a state filed since a time (or terminated, `terminated`), below a position. */
const stateRange = template(
  "stateRange",
  (f: { terminated: boolean; below: Below }, v: Holes<PositionValues & { state: string; since: number }>) => {
    const at = f.terminated ? filings.terminatedAt : filings.filedAt;
    return filingArm(and(eq(filings.state, v.state), gte(at, v.since)), f.below, v, at);
  },
);

/** Filings of a state filed since a time with a debtor in an industry, below a position. */
const industryRange = template(
  "industryRange",
  (f: { below: Below }, v: Holes<PositionValues & { state: string; industry: number; since: number }>) =>
    debtorArm(
      and(
        eq(debtorParties.filingState, v.state),
        eq(debtorParties.industry, v.industry),
        gte(debtorParties.filedAt, v.since),
      ),
      f.below,
      v,
    ),
);

/** Filings since a time with a debtor in a ZIP code (and, `industry`, in an industry), below a position. */
const postalRange = template(
  "postalRange",
  (
    f: { industry: boolean; below: Below },
    v: Holes<PositionValues & { zip5: string; industry: number; since: number }>,
  ) =>
    debtorArm(
      and(
        eq(debtorParties.zip5, v.zip5),
        gte(debtorParties.filedAt, v.since),
        f.industry ? eq(debtorParties.industry, v.industry) : undefined,
      ),
      f.below,
      v,
    ),
);

/** /filings/recent-by-state: filed in `state` since `since`, with a debtor in one of `industries` if given. */
export function recentByState(q: {
  state: string;
  since: string;
  industries?: string[] | undefined;
  after?: ListPosition | undefined;
}): CountedFilter {
  const industries = q.industries ?? [];
  const { below, position } = positionIn(q.after);
  const since = storedInstant(q.since);
  const arms =
    industries.length === 0
      ? [stateRange({ terminated: false, below }, { ...position, state: q.state, since })]
      : industries.map((industry) =>
          industryRange({ below }, { ...position, state: q.state, industry: storedIndustry(industry), since }),
        );
  const count =
    industries.length === 0
      ? facetTotal({ scope: "s", names: false }, { ...facetValues(q.state), since: dayOf(q.since) })
      : industryCount("s", q.state, industries, q.since);
  return { arms, count };
}

/**
 * /filings/recent-by-postal-code: a debtor in the ZIP code (first five digits) filed since
 * `since`; with industries, a debtor there in one of them.
 */
export function recentByPostalCode(q: {
  zip5: string;
  since: string;
  industries?: string[] | undefined;
  after?: ListPosition | undefined;
}): CountedFilter {
  const industries = q.industries ?? [];
  const { below, position } = positionIn(q.after);
  const values = { ...position, zip5: q.zip5, since: storedInstant(q.since) };
  const arms =
    industries.length === 0
      ? [postalRange({ industry: false, below }, { ...values, industry: 0 })]
      : industries.map((industry) =>
          postalRange({ industry: true, below }, { ...values, industry: storedIndustry(industry) }),
        );
  const count =
    industries.length === 0
      ? facetTotal({ scope: "z", names: false }, { ...facetValues(q.zip5), since: dayOf(q.since) })
      : industryCount("z", q.zip5, industries, q.since);
  return { arms, count };
}

export interface LenderQuery {
  name: string;
  state: string;
  since: string;
  borrowerType?: PartyType | undefined;
  /** Resume below this filing (a cursor's position). */
  after?: ListPosition | undefined;
}

/** A lender list's values: the name range, since (a time as stored and its day), and borrower types (setMember). */
export type LenderValues = {
  state: string;
  from: string;
  to: string;
  since: number;
  sinceDay: string;
  /** The borrower type asked for, or none. */
  members: string[];
};

/** A lender query's values (LenderValues). */
export function lenderValues(q: LenderQuery): LenderValues {
  const { from, to } = securedNameRange(q.name);
  const members = q.borrowerType ? [setMember(q.borrowerType)] : [];
  return { state: q.state, from, to, since: storedInstant(q.since), sinceDay: dayOf(q.since), members };
}

/**
 * How many filings since a day in a state have a secured party whose name
 * starts with the query as whole words (the list itself:
 * src/queries/lenders.ts): each lender name's filings (the "l" facets
 * under the name), less the filings two or more of them share (the "o"
 * facet of the name).
 */
export function lenderTotalOf(v: Holes<LenderValues>): SQL {
  const facets = { ...v, place: v.state, name: v.from, since: v.sinceDay };
  const covered = facetTotalOf({ scope: "l", names: true }, facets);
  const shared = facetTotalOf({ scope: "o", names: false }, facets);
  return query
    .select({ total: sql<number>`(${covered}) - (${shared})`.as("total") })
    .from(sql`(select 1)`)
    .getSQL();
}

const lenderTotal = template("lenderTotal", (_: Record<string, never>, v: Holes<LenderValues>) => lenderTotalOf(v));

/** The count of a lender list (lenderTotalOf). */
export const lenderCount = (q: LenderQuery) => lenderTotal({}, lenderValues(q));

/** /filings/recently-terminated: terminated in `state` since `since`, most recent termination first. */
export function recentlyTerminated(q: {
  state: string;
  since: string;
  after?: ListPosition | undefined;
}): CountedFilter {
  const { below, position } = positionIn(q.after);
  return {
    arms: [stateRange({ terminated: true, below }, { ...position, state: q.state, since: storedInstant(q.since) })],
    byTermination: true,
    count: facetTotal({ scope: "t", names: false }, { ...facetValues(q.state), since: dayOf(q.since) }),
  };
}

/** Individual names in one key range that get an ordered arm each; the rest share one sorted arm. */
export const NAME_SLOTS = 4;

/** A debtor query's spans (nameMatch.ts, spanForms) and state, as a template takes them. */
type DebtorValues = { state: string; spans: (string | number)[] };

/**
 * How many filings in a state name a debtor the query finds, each once:
 * the sum of the found debtors' filing counts in debtor_names (one row per
 * debtor, however many filings). That sum counts a filing twice when it
 * names two of the found debtors (spouses "John" and "Jane" for "J Smith"),
 * which debtor_links tells without reading filings: only then are the
 * found debtors' filings in the state counted one by one.
 */
const debtorTotal = template("debtorTotal", (f: { spans: SpanForm[] }, v: Holes<DebtorValues>) => {
  const spans = spansIn(f.spans, v.spans);
  const inState = spansMatch(debtorNames.nameKey, spans, eq(debtorNames.state, v.state));
  // A link between two found debtors: each found debtor's links are sought
  // by the other's key spans (debtor_links primary key), not read whole.
  const together = query
    .select({ one: sql`1` })
    .from(debtorNames)
    .innerJoin(
      debtorLinks,
      spansMatch(
        debtorLinks.otherKey,
        spans,
        and(eq(debtorLinks.nameKey, debtorNames.nameKey), eq(debtorLinks.filingState, debtorNames.state)),
      ),
    )
    .where(inState)
    .limit(1);
  const oneByOne = query
    .select({ total: sql<number>`count(distinct ${debtorParties.filingId})` })
    .from(debtorParties)
    .where(
      and(
        inArray(debtorParties.nameKey, query.select({ key: debtorNames.nameKey }).from(debtorNames).where(inState)),
        eq(debtorParties.filingState, v.state),
      ),
    );
  const summed = query
    .select({ total: sql<number>`coalesce(sum(${debtorNames.filingCount}), 0)` })
    .from(debtorNames)
    .where(inState);
  return query
    .select({ total: sql<number>`case when exists ${together} then ${oneByOne} else ${summed} end`.as("total") })
    .from(sql`(select 1)`)
    .getSQL();
});

/**
 * /debtors/search's index ranges (see byDebtorName): the organization key
 * and exact individual keys an arm each; a key range of few names one
 * sorted arm; any other key range NAME_SLOTS arms, one per name (its key a
 * scalar subquery), and one sorted arm for the names beyond.
 */
const debtorRanges = template(
  "debtorRanges",
  (f: { spans: SpanForm[]; below: Below }, v: Holes<DebtorValues & PositionValues>): SQL[] => {
    const inState = eq(debtorParties.filingState, v.state);
    const range = (where: SQL) => debtorArm(and(where, inState), f.below, v);
    return spansIn(f.spans, v.spans).flatMap((span) => {
      if ("key" in span) return [range(eq(debtorParties.nameKey, span.key))];
      const names = (where?: SQL) =>
        query
          .select({ key: debtorNames.nameKey })
          .from(debtorNames)
          .where(and(eq(debtorNames.state, v.state), spanWhere(debtorNames.nameKey, span), where))
          .orderBy(debtorNames.nameKey);
      if (span.few) return [range(inArray(debtorParties.nameKey, names()))];
      const slot = (i: number) => sql`${names().limit(1).offset(i)}`;
      return [
        ...Array.from({ length: NAME_SLOTS }, (_, i) => range(eq(debtorParties.nameKey, slot(i)))),
        // Beyond the last slot (none when the last slot is empty: `> null`).
        range(inArray(debtorParties.nameKey, names(gt(debtorNames.nameKey, slot(NAME_SLOTS - 1))))),
      ];
    });
  },
);

/**
 * /debtors/search: every filing in `state` with a debtor that a search for
 * `name` finds (src/domain/names.ts, debtorQuery). Each found debtor's
 * filings are one ordered index range (name key, state), so arms merge in
 * list order and a page reads about a page of entries:
 * - the organization key and exact individual keys: one arm each;
 * - an individual key range ("John Smith" finds "smith john *"): the
 *   debtors it holds in the state are read from debtor_names, the first
 *   NAME_SLOTS of them get an arm each (the key is a scalar subquery), and
 *   any beyond share one arm that is sorted: only a very common name pays
 *   for its filings beyond the page. A range of first names filed as an
 *   initial ("smith j *", rarely more than a few filings) is one sorted arm.
 */
export function byDebtorName(q: { name: string; state: string; after?: ListPosition | undefined }): CountedFilter {
  const { forms, values } = spanForms(debtorQuery(q.name));
  const { below, position } = positionIn(q.after);
  return {
    arms: debtorRanges({ spans: forms, below }, { ...position, state: q.state, spans: values }),
    count: debtorTotal({ spans: forms }, { state: q.state, spans: values }),
  };
}

/** Filings with a number (in a state, `inState`), below a position. */
const numberRange = template(
  "numberRange",
  (f: { inState: boolean; below: Below }, v: Holes<PositionValues & { number: string; state: string }>) =>
    filingArm(and(eq(filings.number, v.number), f.inState ? eq(filings.state, v.state) : undefined), f.below, v),
);

/** GET /filings: a filing by its number, in any state unless one is given. */
export function byNumber(q: {
  number: string;
  state?: string | undefined;
  after?: ListPosition | undefined;
}): FilingFilter {
  const { below, position } = positionIn(q.after);
  return {
    arms: [
      numberRange({ inState: q.state !== undefined, below }, { ...position, number: q.number, state: q.state ?? "" }),
    ],
  };
}

/**
 * What a listed filing shows (envelopes A and B, the change feed): of the
 * filing, its identity, dates and state; of its parties, what the
 * presenters show (src/http/present.ts) and the position that orders them;
 * of each amendment, its number, time, kind and description
 * (src/db/listed.ts: the parties and amendments are the filing's listed
 * form). The rest (search keys, collateral texts, the office's own fields,
 * load bookkeeping) is the public lookup's and the report's: a page that
 * does not show it does not read it (withParties, `listed`). Parties are
 * read with the same columns by both readings; amendments whole by `whole`.
 */
const LISTED_FILING = ["id", "state", "number", "filedAt", "lapseDate", "terminatedAt"] as const;

/** A filing with the parties a page shows and its amendments, in filing order, as a list reads it. */
export interface ListedFilingWithParties {
  filing: Pick<Filing, (typeof LISTED_FILING)[number]>;
  debtors: Pick<DebtorParty, (typeof LISTED_DEBTOR)[number]>[];
  securedParties: Pick<SecuredParty, (typeof LISTED_SECURED)[number]>[];
  amendments: Pick<Amendment, (typeof LISTED_AMENDMENT)[number]>[];
}

/** A filing with its parties (and amendments, when asked for), in filing order: the filing and amendments whole. */
export interface FilingWithParties extends ListedFilingWithParties {
  filing: Filing;
  amendments: Amendment[];
}

/**
 * `arms` as one compound SELECT in list order. Beyond MAX_COMPOUND arms,
 * the first four stay terms of their own and the rest are merged first,
 * cut to the `reach` rows a page can need: each nested merge reads about a
 * page of entries whatever it holds, so one per four arms beyond five
 * (fifteen industries: three), where a group per term read five pages.
 */
function merged(arms: Arm[], reach: number, order: SQL): SQL {
  if (arms.length <= MAX_COMPOUND) return sql.join(arms, sql` union `);
  const single = arms.slice(0, MAX_COMPOUND - 1);
  const group = merged(arms.slice(MAX_COMPOUND - 1), reach, order);
  return sql.join([...single, sql`select at, num, fid from (${group} ${order} limit ${reach})`], sql` union `);
}

/** A list's arms for a page that can need `reach` rows: its walk too, cut there. */
const armsOf = (filter: FilingFilter, reach: number): Arm[] =>
  filter.walk ? [...filter.arms, filter.walk(reach)] : filter.arms;

/** The ORDER BY of a list's index entries (at, num, fid). */
const listOrder = (filter: FilingFilter) =>
  filter.ascending
    ? frozen("listOrder:asc", () => sql`order by 1 asc, 2 asc, 3 asc`)
    : frozen("listOrder:desc", () => sql`order by 1 desc, 2 desc, 3 desc`);

/**
 * One page of `filter`'s list, as index entries in list order: its arms
 * merged, `limit` rows from `offset`.
 */
function pageKeys(filter: FilingFilter | CountedFilter, offset: number, limit: number): SQL {
  const order = listOrder(filter);
  const list = merged(armsOf(filter, offset + limit), offset + limit, order);
  const keys = (count: CountedFilter["count"] | undefined) =>
    sql`select at, num, fid from (${list} ${order} limit ${rowLimit(count, offset, limit)} offset ${offset})`;
  const count = "count" in filter ? filter.count : undefined;
  if (count === undefined || offset === 0 || typeof count === "number") return keys(undefined);
  // The count inside the page repeats its bound values: only while D1's 100 allow it (a page
  // past the end then reads the list up to its offset instead).
  const counted = rendered(keys(count));
  return counted.values.length <= D1_MAX_PARAMS ? counted : keys(undefined);
}

/**
 * `limit`, or 0 when the list's count says it ends before `offset`: a page
 * past the end is answered from the count without reading the list (a
 * limit of 0 stops SQLite before its first row). The count is read again
 * for it, only on pages after the first asked by number.
 */
export function rowLimit(count: SQLWrapper | number | undefined, offset: number, limit: number): SQL {
  if (offset === 0 || count === undefined || typeof count === "number") return sql`${limit}`;
  return limitBeforeEnd(count, offset, limit);
}

/** `limit` while `count` is past `offset`, else 0: the end check of a page after the first (rowLimit). */
export function limitBeforeEnd(count: SQLWrapper, offset: SQLWrapper | number, limit: SQLWrapper | number): SQL {
  return sql`(case when (${count}) > ${offset} then ${limit} else 0 end)`;
}

/**
 * Parties (and amendments) of a filing looked up one position at a time
 * before the rest is read as a range (partiesOf). Positions run 0, 1, 2,
 * ... per filing (records.ts, toRows). Most filings have one to three
 * debtors and secured parties, and each level costs SQLite time on every
 * call: envelope B lender pages at 1,030,000 filings took about 450 / 490
 * / 520 / 590 µs of node:sqlite CPU with 1 / 2 / 3 / 4 levels, reading
 * 92 to 105 / 72 to 88 / 71 to 85 / 71 to 85 rows.
 */
export const PARTY_LOOKUPS = 3;

/**
 * A party table's rows of the filing in hand, as JSON text: an array of
 * column arrays (parsed by rowsOf). A range scan of the filing's key reads
 * one row past its last party (D1 counts it); a lookup by the full key
 * reads the row it finds and nothing when there is none. So position 0 is
 * looked up, then, only if it was found, position 1, and so on (nested
 * subqueries); after PARTY_LOOKUPS found, the rest is one range. A filing
 * with k parties reads k rows (k + 1 beyond PARTY_LOOKUPS), and SQLite
 * seeks k + 1 times.
 */
function partiesOf(table: typeof debtorParties | typeof securedParties | typeof amendments, listed = false): SQL {
  return frozen(`partiesOf:${getTableName(table)}:${listed}`, () =>
    table === securedParties ? lenderLookups() : partyLookups(table, listed),
  );
}

/**
 * A filing's secured parties as partiesOf reads them: each one's lenders
 * row by its id in the filing's list (filings.lenders), one position at a
 * time as above, the rest beyond PARTY_LOOKUPS through the list. k parties
 * read k rows.
 */
function lenderLookups(): SQL {
  const [, ...shown] = columnsOf(securedParties);
  const values = (position: SQL) =>
    sql`json_array(${position}, ${sql.join(
      shown.map(([, c]) => sql`${c}`),
      sql`, `,
    )})`;
  const list = sql`${filings.lenders}`;
  let found = sql`(select group_concat(${values(sql`j.key`)}, ',') from json_each(${list}) j join ${lenders} on ${lenders.id} = j.value where j.key >= ${sql.raw(String(PARTY_LOOKUPS))})`;
  for (let i = PARTY_LOOKUPS - 1; i >= 0; i--) {
    const at = sql.raw(String(i));
    found = sql`(select ${values(at)} || coalesce(',' || ${found}, '') from ${lenders} where ${lenders.id} = (${list} ->> ${at}))`;
  }
  return sql`'[' || coalesce(${found}, '') || ']'`;
}

function partyLookups(table: typeof debtorParties | typeof securedParties | typeof amendments, listed: boolean): SQL {
  return sql`'[' || coalesce(${partiesFrom(table, listed, 0)}, '') || ']'`;
}

/** The parties at `start` and after, as partyLookups reads them, comma-separated: null when there are none. */
function partiesFrom(
  table: typeof debtorParties | typeof securedParties | typeof amendments,
  listed: boolean,
  start: number,
): SQL {
  const values = sql`json_array(${sql.join(
    columnsOf(table, listed).map(([, c]) => sql`${c}`),
    sql`, `,
  )})`;
  const ofFiling = sql`${table.filingId} = ${filings.id}`;
  // Each level's table shadows the one around it; filings is the outer query's.
  let found = sql`(select group_concat(${values}, ',') from ${table} where ${ofFiling} and ${table.position} >= ${sql.raw(String(PARTY_LOOKUPS))})`;
  for (let i = PARTY_LOOKUPS - 1; i >= start; i--) {
    found = sql`(select ${values} || coalesce(',' || ${found}, '') from ${table} where ${ofFiling} and ${table.position} = ${sql.raw(String(i))})`;
  }
  return found;
}

type Table = typeof filings | typeof debtorParties | typeof securedParties | typeof amendments;

/**
 * The columns a page reads of each table, in select order, listed once
 * (every page row reads them): a secured party's are its position and its
 * lender's details (lenders), as the listed form holds them (src/db/
 * listed.ts); a filing's, all but its list of lenders and its listed form.
 */
type Columns = readonly (readonly [string, SQLiteColumn])[];
const tableColumns = new Map<Table, Columns>();
let listedFilingColumns: Columns | undefined;
function columnsOf(table: Table, listed = false): Columns {
  if (table === debtorParties) return listedColumns.debtors;
  if (table === securedParties) return listedColumns.securedParties;
  if (listed && table === amendments) return listedColumns.amendments;
  if (listed) {
    let columns = listedFilingColumns;
    if (!columns) {
      columns = columnsOf(filings).filter(([key]) => (LISTED_FILING as readonly string[]).includes(key));
      listedFilingColumns = columns;
    }
    return columns;
  }
  let columns = tableColumns.get(table);
  if (!columns) {
    columns = Object.entries(getTableColumns(table)).filter(
      ([key]) => !(table === filings && (key === "lenders" || key === "listed")),
    );
    tableColumns.set(table, columns);
  }
  return columns;
}

/** A row of `table`'s page columns from its stored values (in columnsOf order), each read back as Drizzle reads it. */
const rowOf = <R>(table: Table, value: (key: string, i: number) => unknown, listed = false): R =>
  decoded<R>(columnsOf(table, listed), value);

type PartyTable = typeof debtorParties | typeof securedParties | typeof amendments;

/** Rows of `table` from arrays of their stored values (in columnsOf order). */
function valuesOf<R>(table: PartyTable, rows: unknown[][], listed = false): R[] {
  return rows.map((values) => rowOf<R>(table, (_, i) => values[i], listed));
}

/** The rows a partiesOf() text holds. */
function rowsOf<R>(table: PartyTable, json: string | null): R[] {
  if (json === null || json === "[]") return [];
  return valuesOf<R>(table, JSON.parse(json) as unknown[][]);
}

/**
 * What a page reads of each filing and amendment: all of it (`whole`: the
 * public lookup and the report show it), or what a list shows (`listed`:
 * ListedFilingWithParties). `walked` reads all of it from rows that carry
 * the debtor the page's index walk read (walkedDebtor).
 */
export type Reading = "whole" | "listed" | "walked";

/**
 * A debtor's values as partiesOf lists them, read from the row `alias` of a
 * walk over a debtor index (debtor_parties by name): the table row of an
 * index entry costs D1 no row read, where looking the party up again by
 * its filing costs one. A page whose rows carry it as `walked` (the
 * "walked" reading) shows it for a filing on which it comes first.
 */
export const walkedDebtor = (alias: string) =>
  frozen(
    `walkedDebtor:${alias}`,
    () =>
      sql`json_array(${sql.join(
        columnsOf(debtorParties).map(([, c]) => sql`${sql.identifier(alias)}.${sql.identifier(c.name)}`),
        sql`, `,
      )})`,
  );

/**
 * A filing's debtors as partiesOf reads them, but for the row's `walked`
 * (walkedDebtor, whose first value is its position) when it is at position
 * 0: that one is not read again, and the lookups start at position 1.
 */
const debtorsWalked = () =>
  frozen(
    "debtorsWalked",
    () => sql`case when ${filings}."walked" ->> 0 = 0
      then '[' || ${filings}."walked" || coalesce(',' || ${partiesFrom(debtorParties, false, 1)}, '') || ']'
      else ${partiesOf(debtorParties)} end`,
  );

/**
 * A filing's listed form (src/db/listed.ts) made up from its tables
 * (partiesOf): what a page reads of a filing that has none, and what the
 * daily job writes onto a filing it records lapsed (src/changes/daily.ts).
 * Without `withAmendments`, its amendments are left empty: a page that reads
 * them whole reads them once.
 */
export const listedFromTables = (withAmendments = true, walked = false) =>
  frozen(
    `listedFromTables:${withAmendments}:${walked}`,
    () =>
      sql`'[' || ${walked ? debtorsWalked() : partiesOf(debtorParties)} || ',' || ${partiesOf(securedParties)} || ',' || ${withAmendments ? partiesOf(amendments, true) : sql`'[]'`} || ']'`,
  );

/**
 * A filing's parties and amendments as a list shows them, one JSON text:
 * its listed form, one column of the row a page has in hand, or for a
 * filing without one (no change the feed keeps, no lapse within the lapse
 * window: src/db/listed.ts), the same text made up from
 * the tables (without the amendments for a `whole` reading, which reads
 * them whole). SQLite's coalesce stops at its first value that is not null:
 * a filing with its form reads no party row.
 */
const listedForm = (reading: Reading) =>
  frozen(
    `listedForm:${reading}`,
    () => sql`coalesce(${filings.listed}, ${listedFromTables(reading === "listed", reading === "walked")})`,
  );

/**
 * The select list of a page row: the filing's columns named by their keys,
 * then its listed form (listedForm): its parties as either reading shows
 * them, and a listed reading's amendments, whether asked for or not (the
 * presenters show them only when asked). Read `whole`, the amendments asked
 * for come whole from their table (partiesOf), named amended. assemble()
 * (assembleListed(), for a listed reading) reads them back. With `shown`,
 * only a row for which it holds reads them (the others get none). Its text
 * is the same on every request, so it is rendered once (frozen).
 */
export function withParties(withAmendments: boolean, shown?: SQL, reading: Reading = "whole"): SQL {
  const listed = reading === "listed";
  const filingColumns = frozen(`filingColumns:${reading}`, () =>
    sql.join(
      columnsOf(filings, listed).map(([key, column]) => sql`${column} as ${sql.identifier(key)}`),
      sql`, `,
    ),
  );
  const whole = !listed && withAmendments;
  const select = (when?: SQL) => {
    const read = (part: SQL) => (when ? sql`case when ${when} then ${part} end` : part);
    const amended = whole ? sql`, ${read(partiesOf(amendments))} as amended` : sql``;
    return sql`${filingColumns}, ${read(listedForm(reading))} as listed${amended}`;
  };
  return shown ? select(shown) : frozen(`withParties:${reading}:${whole}`, () => select());
}

/**
 * A page row of withParties(false) (whole, without amendments) as one JSON
 * object of the same keys and values, for a statement whose other rows have
 * other columns (a lien report's digests carry their oldest live filing so):
 * JSON.parse gives the row assemble() reads.
 */
export const partiesObject = () =>
  frozen(
    "partiesObject",
    () =>
      sql`json_object(${sql.join(
        columnsOf(filings).map(([key, column]) => sql`${sql.raw(`'${key}'`)}, ${column}`),
        sql`, `,
      )}, 'listed', ${listedForm("whole")})`,
  );

/**
 * Filings sought by key from a VALUES list of bound ids, `slots` long (null
 * past the ids given), so one statement text serves any number up to it. A
 * VALUES list is read as SQLite makes it, not as a table, so D1 counts no
 * row for it; a JSON list (json_each) or an `in` list counted a row an id.
 * The caller refuses more ids than slots, rather than leave some out.
 */
export const filingsInList = (ids: readonly SQLWrapper[]) =>
  sql`(values ${sql.join(
    ids.map((id) => sql`(${id})`),
    sql`, `,
  )}) as j cross join ${filings} on ${filings.id} = j.column1`;

/** `ids` as filingsInList binds them: `slots` values, null past the ids. */
export const idSlots = (ids: readonly number[], slots: number): (number | null)[] =>
  Array.from({ length: slots }, (_, i) => ids[i] ?? null);

/** A row of a withParties() select, as D1 returns it: the filing's listed form, and a whole reading's amendments. */
export interface PageRow {
  [column: string]: unknown;
  listed: string | null;
  amended?: string | null;
}

/** After the page's index entries (`page`): their filings, in list order. */
const pageJoin = (filter: FilingFilter) => {
  const dir = filter.ascending ? "asc" : "desc";
  return frozen(
    `pageJoin:${dir}`,
    () =>
      sql` as page inner join ${filings} on ${filings.id} = page.fid order by page.at ${sql.raw(dir)}, page.num ${sql.raw(dir)}, page.fid ${sql.raw(dir)}`,
  );
};

/**
 * One page of `filter`'s list with each filing's parties (and amendments,
 * when asked for), in one statement: the page's index entries are read
 * once and joined to their filings, and each filing's parties are read
 * by primary key (partiesOf), returned as a JSON array. (Three
 * statements, one per table, would each read the page's entries again.)
 * Rows come back as D1 sends them (assemble() reads them).
 */
function pageWithParties(
  filter: FilingFilter | CountedFilter,
  offset: number,
  limit: number,
  withAmendments: boolean,
  reading: Reading,
) {
  return sql`select ${withParties(withAmendments, undefined, reading)} from (${pageKeys(filter, offset, limit)})${pageJoin(filter)}`;
}

/**
 * A page's statements, rendered once for every database that runs them (each
 * shard of a list spanning states, from its start): the page with its
 * parties, `size` rows (and one more, to tell whether another follows,
 * when there is no count), and its count, a statement or known.
 */
export interface PageStatements {
  rows: SQL;
  size: number;
  count?: SQL | number;
  /** What the rows read of each filing: a list's columns unless said (the public lookup reads it whole). */
  reading?: Reading;
}

/** The statements of a counted page (envelope A) of `filter`. */
export function countedStatements(filter: CountedFilter, { size, offset }: PageWindow): PageStatements {
  return { rows: rendered(pageWithParties(filter, offset, size, false, "listed")), size, count: filter.count };
}

/** The statements of an open page (envelope B) of `filter`: one row past the page rather than a count. */
export function openStatements(
  filter: FilingFilter | CountedFilter,
  { size, offset }: PageWindow,
  amendments: boolean,
  reading: Reading = "listed",
): PageStatements {
  return { rows: rendered(pageWithParties(filter, offset, size + 1, amendments, reading)), size, reading };
}

const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
const byPosition = (a: { position: number }, b: { position: number }) => a.position - b.position;
const byFiled = (a: Pick<Amendment, "filedAt" | "number">, b: Pick<Amendment, "filedAt" | "number">) =>
  compare(a.filedAt, b.filedAt) || compare(a.number, b.number);

/** Rows of withParties() as filings with their parties in filing order. */
export function assemble(rows: PageRow[]): FilingWithParties[] {
  return assembled<FilingWithParties>(rows, false);
}

/** Rows of a listed reading of withParties(), likewise. */
export function assembleListed(rows: PageRow[]): ListedFilingWithParties[] {
  return assembled<ListedFilingWithParties>(rows, true);
}

function assembled<T extends ListedFilingWithParties>(rows: PageRow[], listed: boolean): T[] {
  return rows.map((row) => {
    // The listed form, or none for a row a page does not show (withParties' `shown`).
    const [debtors = [], secured = [], amended = []] = row.listed ? (JSON.parse(row.listed) as unknown[][][]) : [];
    return {
      filing: rowOf<T["filing"]>(filings, (key) => row[key], listed),
      debtors: valuesOf<T["debtors"][number]>(debtorParties, debtors).sort(byPosition),
      securedParties: valuesOf<T["securedParties"][number]>(securedParties, secured).sort(byPosition),
      amendments: (listed
        ? valuesOf<T["amendments"][number]>(amendments, amended, true)
        : rowsOf<T["amendments"][number]>(amendments, row.amended ?? null)
      ).sort(byFiled),
    } as T;
  });
}

/** A page with the total number of matches (envelope A), from its statements. */
export async function readCountedPage(
  db: Db,
  { rows, count = 0 }: PageStatements,
): Promise<{ items: ListedFilingWithParties[]; total: number }> {
  if (typeof count === "number") {
    const [listed] = await db.batch([db.all<PageRow>(rows)]);
    return { items: assembleListed(listed), total: count };
  }
  const [listed, [counted]] = await db.batch([db.all<PageRow>(rows), db.all<{ total: number }>(count)]);
  return { items: assembleListed(listed), total: Number(counted?.total ?? 0) };
}

/** A page with the total number of matches (envelope A). */
export function fetchCountedPage(
  db: Db,
  filter: CountedFilter,
  window: PageWindow,
): Promise<{ items: ListedFilingWithParties[]; total: number }> {
  return readCountedPage(db, countedStatements(filter, window));
}

/** A page that says whether another follows (envelope B), from its statements, with the data-load time of `state`. */
export async function readOpenPage(
  db: Db,
  { rows: page, size, reading = "listed" }: PageStatements,
  state?: string,
): Promise<{ items: ListedFilingWithParties[]; hasMore: boolean; dataLoadedAt: string | null }> {
  const [rows, loaded] = await db.batch([db.all<PageRow>(page), dataLoadedAt(db, state)]);
  const shown = rows.slice(0, size);
  return {
    items: reading === "whole" ? assemble(shown) : assembleListed(shown),
    hasMore: rows.length > size,
    dataLoadedAt: loadedAtOf(loaded, state),
  };
}

/**
 * A page that says whether another follows (envelope B): it reads one row
 * past the page rather than counting every match.
 */
export function fetchOpenPage(
  db: Db,
  filter: FilingFilter | CountedFilter,
  window: PageWindow,
  options: OpenOptions,
): Promise<{ items: ListedFilingWithParties[]; hasMore: boolean; dataLoadedAt: string | null }> {
  return readOpenPage(db, openStatements(filter, window, options.amendments, options.reading), options.state);
}

/** How an open page reads: with amendments or not, a state's load time or the shard's, and each filing whole or as listed. */
export interface OpenOptions {
  amendments: boolean;
  state?: string | undefined;
  reading?: Reading;
}

/**
 * `items` as whole filings, as a page read with reading "whole" holds
 * them (the public lookup's); an item read as listed is a fault.
 */
export function wholeFilings(items: ListedFilingWithParties[]): FilingWithParties[] {
  return items.map((item) => {
    if (!isWhole(item)) throw new Error("a listed filing where a whole one was read");
    return item;
  });
}

const isWhole = (item: ListedFilingWithParties): item is FilingWithParties => "collateral" in item.filing;

/**
 * When the data was last loaded (`data_source_last_updated`): the state's
 * own load time (state_loads) for a list of one state, else the newest load
 * of the shard.
 */
export function dataLoadedAt(db: Db, state?: string) {
  return state ? db.all<LoadRow>(stateLoad({}, { state })) : db.all<LoadRow>(latestLoad());
}

/** A row of a dataLoadedAt() statement, as stored. */
type LoadRow = { at: number | string | null };

/** The load time a dataLoadedAt() statement read, as served. */
export function loadedAtOf(rows: LoadRow[], state?: string): string | null {
  const at = rows[0]?.at ?? null;
  if (at === null) return null;
  return state ? String(stateLoads.lastLoadedAt.mapFromDriverValue(Number(at))) : String(at);
}

// Rendered once per isolate: the same statements on every open page and cross-state merge.
const latestLoad = () => frozen("latestLoad", () => sql`select max(${dataLoads.loadedAt}) as at from ${dataLoads}`);
const stateLoad = template(
  "stateLoad",
  (_: Record<string, never>, v: Holes<{ state: string }>) =>
    sql`select ${stateLoads.lastLoadedAt} as at from ${stateLoads} where ${stateLoads.state} = ${v.state}`,
);

/** A list's position of a filing: its list time and number (ids differ between databases). */
export interface ListKey {
  at: string;
  num: string;
}

/**
 * The list keys of the first `limit` rows of `filter`'s list and the
 * data-load time (of `state`, for a list of one state), in one batch: a
 * shard's part in a merge of several shards' lists (src/queries/fanout.ts).
 * Index entries only.
 */
export async function fetchListKeys(
  db: Db,
  filter: FilingFilter,
  limit: number,
  state?: string,
): Promise<{ keys: ListKey[]; dataLoadedAt: string | null }> {
  const order = listOrder(filter);
  const [rows, loaded] = await db.batch([
    db.all<ListKey>(sql`select at, num from (${merged(armsOf(filter, limit), limit, order)} ${order} limit ${limit})`),
    dataLoadedAt(db, state),
  ]);
  return { keys: rows, dataLoadedAt: loadedAtOf(loaded, state) };
}

/**
 * The count of `filter`'s list and the data-load time (of `state`, for a
 * list of one state), in one batch: what a shard says before a deep merged
 * page.
 */
export async function fetchTotal(
  db: Db,
  filter: CountedFilter,
  state?: string,
): Promise<{ total: number; dataLoadedAt: string | null }> {
  if (typeof filter.count === "number") {
    const [loaded] = await db.batch([dataLoadedAt(db, state)]);
    return { total: filter.count, dataLoadedAt: loadedAtOf(loaded, state) };
  }
  const [loaded, [counted]] = await db.batch([dataLoadedAt(db, state), db.all<{ total: number }>(filter.count)]);
  return { total: Number(counted?.total ?? 0), dataLoadedAt: loadedAtOf(loaded, state) };
}
