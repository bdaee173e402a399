/**
 * /secureds/recent-by-secured-party: a page of the filings in a state with a
 * secured party whose name starts with the query as whole words, in one D1
 * round trip whose rows read follow the page and the lender names matched.
 *
 * A query covers several index ranges of secured_parties_name, one per
 * lender key (whole-word name and debtor-type set): "wells fargo" covers
 * "wells fargo bank na" and "wells fargo equipment finance inc", each with
 * up to three debtor-type sets. One statement merges their ranges in list
 * order with a recursive CTE whose queue is ordered (SQLite's priority
 * queue):
 * - the keys are the state's lender facets under the name (facet_counts,
 *   scope "l": one row per key, kept by the loaders), those of the
 *   borrower type asked for only; each one's newest recent entry, one
 *   index seek, enters the queue;
 * - popping an entry (the newest left of all keys) queues the next entry
 *   of its key, one seek;
 * - a filing with two matching lenders comes out of the merge once per
 *   lender, its entries side by side (same sort key); the page takes
 *   DISTINCT ids, so it is listed once. (Skipping all but a filing's first
 *   matching lender instead would walk the whole range of a lender named
 *   only ever second.)
 * Rows read: one per key (its facet), one per key of the borrower type
 * (its newest entry), and 3 per row up to the page's end (queue pops and
 * DISTINCT probes are reads too), then the page's filings and parties
 * (read by position: src/queries/filings.ts, partiesOf). The page's
 * parties come back as JSON beside each filing, so the merge runs once per
 * request rather than once per statement.
 */
import { and, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { maskBit } from "../db/encodings.ts";
import { facetCounts, filings, securedParties } from "../db/schema.ts";
import { PARTY_TYPES } from "../domain/kinds.ts";
import { type Db, type Holes, template } from "./db.ts";
import {
  assembleListed,
  type Below,
  below,
  dataLoadedAt,
  type LenderQuery,
  type LenderValues,
  type ListedFilingWithParties,
  lenderCount,
  lenderTotalOf,
  lenderValues,
  limitBeforeEnd,
  loadedAtOf,
  type PageRow,
  type PageWindow,
  type PositionValues,
  positionIn,
  setIncludes,
  setIncludesAny,
  setMember,
  withParties,
} from "./filings.ts";

const sp = securedParties;

/**
 * An index entry of secured_parties_name as JSON: [sort key, name id,
 * debtor types, filed at, number, filing id, position]. The sort key
 * (filing time as fixed-width digits, then the number in hex) orders the
 * JSON text itself newest first under DESC, so the queue can be ordered by
 * the one column a recursive CTE carries.
 */
const entry = sql`json_array(printf('%012d', ${sp.filedAt}) || hex(${sp.filingNumber}), ${sp.nameId}, ${sp.debtorTypes}, ${sp.filedAt}, ${sp.filingNumber}, ${sp.filingId}, ${sp.position})`;
const at = (ref: SQL, i: number) => sql`(${ref} ->> ${sql.raw(String(i))})`;
const NAME = 1;
const TYPES = 2;
const FILED = 3;
const NUMBER = 4;
const FILING = 5;
const newestFirst = sql`order by ${sp.filedAt} desc, ${sp.filingNumber} desc, ${sp.filingId} desc limit 1`;

/** A lender facet's debtor-type set as secured_parties.debtor_types stores it (a bit mask). */
const facetMask = sql.join(
  PARTY_TYPES.map(
    (type) =>
      sql`(${setIncludes(facetCounts.facet, setMember(type))}) * ${sql.raw(String(maskBit(PARTY_TYPES, type)))}`,
  ),
  sql` + `,
);

/** The form of a lender page statement (pageStatement). */
type PageForm = {
  /** Rows it lists (VALUES slots), and whether their parties (and amendments) are read. */
  rows: number;
  amendments: boolean;
  below: Below;
  /** Whether the page starts past the list's first row (its limit then checks the count). */
  offset: boolean;
  /** Borrower types whose keys it walks: one asked for, or all. */
  types: number;
};

type PageValues = LenderValues &
  PositionValues & {
    types: string[];
    offset: number;
    limit: number;
    /** How many of the rows get their parties: the page's, not envelope B's look-ahead row. */
    shown: number;
  };

/**
 * The ids of filings `offset` to `offset + limit` of the lender list (below
 * a position, if given), in list order (a subquery with the column `fid`).
 * Resumed below a position, each key's walk starts there: one seek per key,
 * as on page 1. A page past the end, by the count, walks nothing.
 */
function lenderPageIds(f: PageForm, v: Holes<PageValues>): SQL {
  const walk = sql.raw("walk.j");
  // The lender keys: the state's "l" facets under the name, one per name and debtor-type set (schema.ts).
  const keys = and(
    eq(facetCounts.scope, "l"),
    eq(facetCounts.place, v.state),
    gte(facetCounts.name, v.from),
    lt(facetCounts.name, v.to),
    setIncludesAny(facetCounts.facet, v.types),
  );
  // A key's newest recent entry matching `after` (one index seek).
  const newestOf = (name: SQL, types: SQL, after?: SQL) =>
    sql`(select ${entry} from ${sp} where ${sp.filingState} = ${v.state} and ${sp.nameId} = ${name} and ${sp.debtorTypes} = ${types} and ${sp.filedAt} >= ${v.since}${after ? sql` and ${after}` : sql``} ${newestFirst})`;
  // A key's name by its id, which its facet holds and its entries carry from then on.
  const newest = newestOf(
    sql`${facetCounts.ref}`,
    facetMask,
    below(sp.filedAt, sp.filingNumber, sp.filingId, f.below, v),
  );
  // The entry after `ref` in its key's range, if recent.
  const next = (ref: SQL) =>
    newestOf(
      at(ref, NAME),
      at(ref, TYPES),
      sql`(${sp.filedAt}, ${sp.filingNumber}, ${sp.filingId}) < (${at(ref, FILED)}, ${at(ref, NUMBER)}, ${at(ref, FILING)})`,
    );
  const limit = f.offset ? limitBeforeEnd(lenderTotalOf(v), v.offset, v.limit) : v.limit;
  return sql`select fid from (with recursive walk(j) as (
    select ${newest} from ${facetCounts} where ${keys}
    union all
    select ${next(walk)} from walk where ${walk} is not null
    order by 1 desc
  ) select distinct j ->> ${sql.raw(String(FILING))} as fid from walk where j is not null limit ${limit} offset ${v.offset})`;
}

/**
 * The filings of the lender list from an offset, at most `rows`, with the
 * parties (and amendments) of the first `shown` of them. The list's ids are
 * one JSON array, computed once (an uncorrelated subquery), taken in list
 * order by a VALUES list of slots, so each row knows its place: a
 * look-ahead filing past `shown` (envelope B's "is there a next page")
 * reads its filing row only. The slots come first: D1 does not count a
 * leading VALUES list as rows read, while one joined after the ids would
 * be copied into a temporary table (counted).
 */
const pageStatement = template("lenderPage", (f: PageForm, v: Holes<PageValues>) => {
  const slots = sql.raw(Array.from({ length: f.rows }, (_, i) => `(${i})`).join(", "));
  const ids = sql`(select json_group_array(fid) from (${lenderPageIds(f, v)}))`;
  const slot = sql.raw("slot.column1");
  // CROSS JOIN keeps SQLite's join order: each slot, then its filing by id.
  return sql`select ${withParties(f.amendments, sql`${slot} < ${v.shown}`, "listed")}, ${slot} as slot from (values ${slots}) as slot cross join ${filings} where ${filings.id} = ${ids} ->> ${slot}`;
});

/** The page statement of `q` from `offset`: `limit` rows, the first `shown` with their parties. */
function page(db: Db, q: LenderQuery, offset: number, limit: number, shown: number, amendments: boolean) {
  const { below, position } = positionIn(q.after);
  const types = (q.borrowerType ? [q.borrowerType] : PARTY_TYPES).map(setMember);
  const form = { rows: limit, amendments, below, offset: offset > 0, types: types.length };
  return db.all<PageRow & { slot: number }>(
    pageStatement(form, { ...lenderValues(q), ...position, types, offset, limit, shown }),
  );
}

/** Rows of a page statement in list order (by slot). */
const assemble = (rows: (PageRow & { slot: number })[]) =>
  assembleListed(rows.sort((a, b) => a.slot - b.slot).map(({ slot: _, ...row }) => row));

/** A page with the total number of matches (envelope A): one batch. */
export async function lenderCountedPage(
  db: Db,
  q: LenderQuery,
  { size, offset }: PageWindow,
): Promise<{ items: ListedFilingWithParties[]; total: number }> {
  const [rows, [counted]] = await db.batch([
    page(db, q, offset, size, size, false),
    db.all<{ total: number }>(lenderCount(q)),
  ]);
  return { items: assemble(rows), total: Number(counted?.total ?? 0) };
}

/**
 * A page that says whether another follows (envelope B), with amendments:
 * one batch. The list is read one filing past the page, without its parties.
 */
export async function lenderOpenPage(
  db: Db,
  q: LenderQuery,
  { size, offset }: PageWindow,
): Promise<{ items: ListedFilingWithParties[]; hasMore: boolean; dataLoadedAt: string | null }> {
  const [rows, loaded] = await db.batch([page(db, q, offset, size + 1, size, true), dataLoadedAt(db, q.state)]);
  const items = assemble(rows);
  return { items: items.slice(0, size), hasMore: items.length > size, dataLoadedAt: loadedAtOf(loaded, q.state) };
}
