/**
 * /secureds/recent-by-secured-party: a page of the filings in a state with a
 * secured party whose name starts with the query as whole words, in one D1
 * round trip whose rows read follow the page and the lender names matched.
 *
 * A query covers several index ranges of secured_parties_name, one per
 * lender key (whole-word name and debtor-type set): "wells fargo" covers
 * "wells fargo bank na" and "wells fargo equipment finance inc", each with
 * up to three debtor-type sets. One statement finds the keys and merges
 * their ranges in list order with a recursive CTE whose queue is ordered
 * (SQLite's priority queue):
 * - a scout walks the keys from the top of the name range down, one index
 *   seek each (the key's newest entry comes with it), and sorts ahead of
 *   every entry so each key is known before the merge passes it;
 * - each key's newest recent entry enters the queue; popping an entry (the
 *   newest left of all keys) queues the next entry of its key, one seek;
 * - a filing with two matching lenders comes out of the merge once per
 *   lender, its entries side by side (same sort key); the page takes
 *   DISTINCT ids, so it is listed once. (Skipping all but a filing's first
 *   matching lender instead would walk the whole range of a lender named
 *   only ever second.)
 * Rows read: about 2.3 per key plus 3 per row up to the page's end (queue
 * pops and DISTINCT probes are reads too), then the page's filings and
 * parties. The page's parties come back as JSON beside each filing, so the
 * merge runs once per request rather than once per statement.
 */
import { eq, max, type SQL, sql } from "drizzle-orm";
import { maskBit } from "../db/encodings.ts";
import { dataLoads, filings, securedParties } from "../db/schema.ts";
import { PARTY_TYPES } from "../domain/kinds.ts";
import { securedNameRange } from "../domain/names.ts";
import type { Db } from "./db.ts";
import {
  assemble as assembleParties,
  type FilingWithParties,
  type LenderQuery,
  lenderCount,
  listOrder,
  type PageWindow,
  withParties,
} from "./filings.ts";

const sp = securedParties;

/**
 * An index entry of secured_parties_name as JSON: [sort key, name words,
 * debtor types, filed at, number, filing id, position]. The sort key
 * (filing time as fixed-width digits, then the number in hex) orders the
 * JSON text itself newest first under DESC, so the queue can be ordered by
 * the one column a recursive CTE carries. A scout's sort key is "~",
 * above every entry.
 */
const entry = sql`json_array(printf('%012d', ${sp.filedAt}) || hex(${sp.filingNumber}), ${sp.nameWords}, ${sp.debtorTypes}, ${sp.filedAt}, ${sp.filingNumber}, ${sp.filingId}, ${sp.position})`;
const SCOUT = "~";
const at = (ref: SQL, i: number) => sql`(${ref} ->> ${sql.raw(String(i))})`;
const NAME = 1;
const TYPES = 2;
const FILED = 3;
const NUMBER = 4;
const FILING = 5;
const byKeyDesc = sql`order by ${sp.nameWords} desc, ${sp.debtorTypes} desc, ${sp.filedAt} desc, ${sp.filingNumber} desc, ${sp.filingId} desc limit 1`;

/**
 * The ids of filings `offset` to `offset + limit` of the lender list, in list
 * order (a subquery with the column `fid`).
 */
function lenderPageIds(q: LenderQuery, offset: number, limit: number): SQL {
  const { from, to } = securedNameRange(q.name);
  const mask = q.borrowerType ? maskBit(PARTY_TYPES, q.borrowerType) : (1 << PARTY_TYPES.length) - 1;
  const since = Math.floor(Date.parse(q.since) / 1000);
  const walk = sql.raw("walk.j");
  const inRange = sql`${sp.nameWords} >= ${from} and ${sp.nameWords} < ${to}`;
  // The entry after `ref` in its key's range, if recent.
  const next = (ref: SQL) =>
    sql`(select ${entry} from ${sp} where ${sp.filingState} = ${q.state} and ${sp.nameWords} = ${at(ref, NAME)} and ${sp.debtorTypes} = ${at(ref, TYPES)} and ${sp.filedAt} >= ${since} and (${sp.filedAt}, ${sp.filingNumber}, ${sp.filingId}) < (${at(ref, FILED)}, ${at(ref, NUMBER)}, ${at(ref, FILING)}) order by ${sp.filedAt} desc, ${sp.filingNumber} desc, ${sp.filingId} desc limit 1)`;
  const scout = (e: SQL) => sql`json_set(${e}, '$[0]', ${SCOUT})`;
  const isScout = sql`${at(walk, 0)} = ${SCOUT}`;
  return sql`select fid from (with recursive walk(j) as (
    select ${scout(sql`(select ${entry} from ${sp} where ${sp.filingState} = ${q.state} and ${inRange} ${byKeyDesc})`)}
    union all
    select ${scout(
      sql`coalesce(
        (select ${entry} from ${sp} where ${sp.filingState} = ${q.state} and ${sp.nameWords} = ${at(walk, NAME)} and ${sp.debtorTypes} < ${at(walk, TYPES)} ${byKeyDesc}),
        (select ${entry} from ${sp} where ${sp.filingState} = ${q.state} and ${sp.nameWords} >= ${from} and ${sp.nameWords} < ${at(walk, NAME)} ${byKeyDesc}))`,
    )} from walk where ${isScout}
    union all
    select json_set(${walk}, '$[0]', printf('%012d', ${at(walk, FILED)}) || hex(${at(walk, NUMBER)}))
    from walk where ${isScout} and ${at(walk, FILED)} >= ${since} and (${at(walk, TYPES)} & ${mask}) <> 0
    union all
    select ${next(walk)} from walk where ${at(walk, 0)} <> ${SCOUT}
    order by 1 desc
  ) select distinct j ->> 5 as fid from walk where ${at(sql.raw("j"), 0)} <> ${SCOUT} limit ${limit} offset ${offset})`;
}

/** The page's filings with their parties (and amendments), in list order by assemble(). */
function pageStatement(db: Db, q: LenderQuery, offset: number, limit: number, withAmendments: boolean) {
  return db
    .select(withParties(withAmendments))
    .from(sql`(${lenderPageIds(q, offset, limit)}) page`)
    .innerJoin(filings, eq(filings.id, sql`page.fid`));
}

/** Rows of pageStatement in list order (the join does not keep the page's order). */
const assemble = (rows: Awaited<ReturnType<typeof pageStatement>>) => assembleParties(rows).sort(listOrder);

/** A page with the total number of matches (envelope A): one batch. */
export async function lenderCountedPage(
  db: Db,
  q: LenderQuery,
  { page, size, offset = (page - 1) * size }: PageWindow,
): Promise<{ items: FilingWithParties[]; total: number }> {
  const [rows, [counted]] = await db.batch([pageStatement(db, q, offset, size, false), lenderCount(db, q)]);
  return { items: assemble(rows), total: Number(counted?.total ?? 0) };
}

/** A page that says whether another follows (envelope B), with amendments: one batch. */
export async function lenderOpenPage(
  db: Db,
  q: LenderQuery,
  { page, size, offset = (page - 1) * size }: PageWindow,
): Promise<{ items: FilingWithParties[]; hasMore: boolean; dataLoadedAt: string | null }> {
  const [rows, [loaded]] = await db.batch([
    pageStatement(db, q, offset, size + 1, true),
    db.select({ at: max(dataLoads.loadedAt) }).from(dataLoads),
  ]);
  const items = assemble(rows);
  return { items: items.slice(0, size), hasMore: items.length > size, dataLoadedAt: loaded?.at ?? null };
}
