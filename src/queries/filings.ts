/**
 * Queries behind the filing lists (endpoints 1 to 5).
 *
 * Each endpoint is a filter over `filings` plus an order. A page is fetched in
 * one D1 round trip: a batch of the page itself, the debtors and secured
 * parties of the page's filings (selected by the same page as a subquery, so
 * no second round trip is needed for the ids), and either the total count
 * (envelope A) or the amendments and data-load time (envelope B, which reads
 * one row past the page instead of counting).
 *
 * Every filter is served by an index of src/db/schema.ts; test/query-plans
 * checks them with EXPLAIN QUERY PLAN.
 */
import { and, desc, eq, exists, gt, gte, inArray, lt, max, type SQL, sql } from "drizzle-orm";
import type { SQLiteSelect } from "drizzle-orm/sqlite-core";
import {
  type Amendment,
  amendments,
  type DebtorParty,
  dataLoads,
  debtorParties,
  type Filing,
  filingDayCounts,
  filings,
  type SecuredParty,
  securedParties,
} from "../db/schema.ts";
import { securedNameRange } from "../domain/names.ts";
import type { Db } from "./db.ts";

/** How a list is filtered, ordered and counted. */
export interface FilingFilter {
  where: SQL | undefined;
  /** Newest first; the id tie-break makes pages stable. */
  order: SQL[];
  /**
   * Statements whose `total`s add up to the number of matches, when there is
   * something cheaper than counting them one by one; default: count(*).
   */
  counts?: CountQuery[];
}

type CountQuery = ReturnType<typeof countAll> | ReturnType<typeof sumDays>;

function countAll(db: Db, where: SQL | undefined) {
  return db.select({ total: sql<number>`count(*)` }).from(filings).where(where);
}

/** Filings of `state` (with a debtor in `industry`, or all for "") filed on days after `afterDay`. */
function sumDays(db: Db, state: string, industry: string, afterDay: string) {
  return db
    .select({ total: sql<number>`coalesce(sum(${filingDayCounts.filings}), 0)` })
    .from(filingDayCounts)
    .where(
      and(eq(filingDayCounts.state, state), eq(filingDayCounts.industry, industry), gt(filingDayCounts.day, afterDay)),
    );
}

export interface PageWindow {
  page: number;
  size: number;
}

const newestFiled = [desc(filings.filedAt), desc(filings.number), desc(filings.id)];

/** Filings with at least one debtor meeting `condition`. */
function withDebtor(db: Db, condition: SQL | undefined): SQL {
  return exists(
    db
      .select({ one: sql`1` })
      .from(debtorParties)
      .where(and(eq(debtorParties.filingId, filings.id), condition)),
  );
}

/** Filings with a debtor in one of `industries` (any debtor on the filing). */
function withDebtorIndustry(db: Db, industries: string[] | undefined): SQL | undefined {
  if (!industries || industries.length === 0) return undefined;
  return withDebtor(db, inArray(debtorParties.industry, industries));
}

/** Endpoint 1: filed in `state` since `since`. */
export function recentByState(db: Db, q: { state: string; since: string; industries?: string[] }): FilingFilter {
  const where = and(eq(filings.state, q.state), gte(filings.filedAt, q.since), withDebtorIndustry(db, q.industries));
  const industries = q.industries ?? [];
  // Several industries would double-count filings whose debtors span them:
  // those requests count one by one.
  if (industries.length > 1) return { where, order: newestFiled };
  // Whole days after the window's first day come from the day counts; the
  // first, partial day is counted from the index.
  const firstDay = q.since.slice(0, 10);
  const nextDay = `${new Date(Date.parse(`${firstDay}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)}T00:00:00Z`;
  return {
    where,
    order: newestFiled,
    counts: [
      sumDays(db, q.state, industries[0] ?? "", firstDay),
      countAll(db, and(where, lt(filings.filedAt, nextDay))),
    ],
  };
}

/** Endpoint 2: a debtor in the ZIP code (first five digits), filed since `since`. */
export function recentByPostalCode(db: Db, q: { zip5: string; since: string; industries?: string[] }): FilingFilter {
  const atZip = db
    .select({ id: debtorParties.filingId })
    .from(debtorParties)
    .where(and(eq(debtorParties.zip5, q.zip5), gte(debtorParties.filedAt, q.since)));
  return {
    where: and(inArray(filings.id, atZip), gte(filings.filedAt, q.since), withDebtorIndustry(db, q.industries)),
    order: newestFiled,
  };
}

/** Endpoint 3: a secured party whose name starts with `name` as whole words, in `state`. */
export function recentBySecuredParty(
  db: Db,
  q: { name: string; state: string; since: string; borrowerType?: "Organization" | "Individual" },
): FilingFilter {
  const { from, to } = securedNameRange(q.name);
  const named = db
    .select({ id: securedParties.filingId })
    .from(securedParties)
    .where(
      and(
        eq(securedParties.filingState, q.state),
        gte(securedParties.nameWords, from),
        lt(securedParties.nameWords, to),
        gte(securedParties.filedAt, q.since),
      ),
    );
  const ofType = q.borrowerType ? withDebtor(db, eq(debtorParties.type, q.borrowerType)) : undefined;
  return {
    where: and(eq(filings.state, q.state), gte(filings.filedAt, q.since), inArray(filings.id, named), ofType),
    order: newestFiled,
  };
}

/** Endpoint 4: terminated in `state` since `since`, most recent termination first. */
export function recentlyTerminated(q: { state: string; since: string }): FilingFilter {
  return {
    where: and(eq(filings.state, q.state), gte(filings.terminatedAt, q.since)),
    order: [desc(filings.terminatedAt), desc(filings.number), desc(filings.id)],
  };
}

/** Endpoint 5: every filing in `state` with a debtor whose match key is `nameKey`. */
export function byDebtorName(db: Db, q: { nameKey: string; state: string }): FilingFilter {
  const named = db
    .select({ id: debtorParties.filingId })
    .from(debtorParties)
    .where(and(eq(debtorParties.nameKey, q.nameKey), eq(debtorParties.filingState, q.state)));
  return { where: and(eq(filings.state, q.state), inArray(filings.id, named)), order: newestFiled };
}

/** Endpoint 9: a filing by its number, in any state unless one is given. */
export function byNumber(q: { number: string; state?: string | undefined }): FilingFilter {
  return {
    where: and(eq(filings.number, q.number), q.state ? eq(filings.state, q.state) : undefined),
    order: newestFiled,
  };
}

/** A filing with its parties (and amendments, when asked for), in filing order. */
export interface FilingWithParties {
  filing: Filing;
  debtors: DebtorParty[];
  securedParties: SecuredParty[];
  amendments: Amendment[];
}

/** One page of `filter`'s matches, whatever `query` selects of them. */
function inPage<T extends SQLiteSelect>(query: T, filter: FilingFilter, offset: number, limit: number): T {
  return query
    .where(filter.where)
    .orderBy(...filter.order)
    .limit(limit)
    .offset(offset);
}

const pageOf = (db: Db, filter: FilingFilter, offset: number, limit: number) =>
  inPage(db.select().from(filings).$dynamic(), filter, offset, limit);

const pageIdsOf = (db: Db, filter: FilingFilter, offset: number, limit: number) =>
  inPage(db.select({ id: filings.id }).from(filings).$dynamic(), filter, offset, limit);

type PageIds = ReturnType<typeof pageIdsOf>;

/** The parties and amendments of the page's filings, in filing order. */
const debtorsOf = (db: Db, ids: PageIds) =>
  db
    .select()
    .from(debtorParties)
    .where(inArray(debtorParties.filingId, ids))
    .orderBy(debtorParties.filingId, debtorParties.position);

const securedOf = (db: Db, ids: PageIds) =>
  db
    .select()
    .from(securedParties)
    .where(inArray(securedParties.filingId, ids))
    .orderBy(securedParties.filingId, securedParties.position);

const amendmentsOf = (db: Db, ids: PageIds) =>
  db
    .select()
    .from(amendments)
    .where(inArray(amendments.filingId, ids))
    .orderBy(amendments.filingId, amendments.filedAt, amendments.number);

function assemble(
  page: Filing[],
  debtors: DebtorParty[],
  secured: SecuredParty[],
  amended: Amendment[] = [],
): FilingWithParties[] {
  const byFiling = new Map<number, FilingWithParties>(
    page.map((filing) => [filing.id, { filing, debtors: [], securedParties: [], amendments: [] }]),
  );
  for (const d of debtors) byFiling.get(d.filingId)?.debtors.push(d);
  for (const s of secured) byFiling.get(s.filingId)?.securedParties.push(s);
  for (const a of amended) byFiling.get(a.filingId)?.amendments.push(a);
  return [...byFiling.values()];
}

/** A page with the total number of matches (envelope A). */
export async function fetchCountedPage(
  db: Db,
  filter: FilingFilter,
  { page, size }: PageWindow,
): Promise<{ items: FilingWithParties[]; total: number }> {
  const offset = (page - 1) * size;
  const ids = pageIdsOf(db, filter, offset, size);
  const counts = filter.counts ?? [countAll(db, filter.where)];
  const [rows, debtors, secured, ...totals] = await db.batch([
    pageOf(db, filter, offset, size),
    debtorsOf(db, ids),
    securedOf(db, ids),
    ...counts,
  ]);
  const total = totals.reduce((sum, [r]) => sum + Number(r?.total ?? 0), 0);
  return { items: assemble(rows, debtors, secured), total };
}

/**
 * A page that says whether another follows (envelope B): it reads one row
 * past the page rather than counting every match.
 */
export async function fetchOpenPage(
  db: Db,
  filter: FilingFilter,
  { page, size }: PageWindow,
  options: { amendments: boolean },
): Promise<{ items: FilingWithParties[]; hasMore: boolean; dataLoadedAt: string | null }> {
  const offset = (page - 1) * size;
  const ids = pageIdsOf(db, filter, offset, size);
  const common = [
    pageOf(db, filter, offset, size + 1),
    debtorsOf(db, ids),
    securedOf(db, ids),
    db.select({ at: max(dataLoads.loadedAt) }).from(dataLoads),
  ] as const;
  const [rows, debtors, secured, [loaded], amended = []] = options.amendments
    ? await db.batch([...common, amendmentsOf(db, ids)])
    : await db.batch(common);
  return {
    items: assemble(rows.slice(0, size), debtors, secured, amended),
    hasMore: rows.length > size,
    dataLoadedAt: loaded?.at ?? null,
  };
}
