/**
 * Brings stored match keys up to the name rules of src/domain/names.ts.
 *
 * Keys are computed when a filing is loaded (records.ts, toRows): each
 * debtor party's name_key and each secured party's name (lender_names). When the
 * rules change, rows loaded before keep keys that queries no longer
 * produce, and a SQL migration cannot run the normalizer. This walks the
 * stored filings a page of ids at a time, recomputes both from the stored
 * names, and rewrites only the rows whose key changed, with what derives
 * from them, as the loaders keep it (src/db/load.ts):
 * - a changed debtor key: every debtor of that filing, under its old and
 *   its new key, is queued and refreshed (debtor_names, known addresses,
 *   co-debtor links, whose other side names the key too), and the new
 *   keys' spellings get their sound keys for similar-name search;
 * - changed lender words: the filing's "l", "o" and "k" facets (schema.ts) are
 *   taken back under the old words and counted under the new;
 * - changed traits (records.ts, traitsOf: what the lien report counts of a
 *   filing's collateral and lenders, or none yet on rows loaded before
 *   migration 0023): rewritten, and the filing's debtors queued, whose
 *   report digests are rebuilt with their other aggregates;
 * - its debtors' industries on each secured party (debtor_industries, none
 *   yet on rows loaded before migration 0031): written where they differ;
 * - then each report digest without its oldest live filing's time (one a
 *   Worker before migration 0036 built): given that filing's time.
 * A page whose keys are all current writes nothing, so a second run
 * changes nothing; a run cut short leaves its queue and stale totals, which
 * the next run refreshes.
 */
import { and, eq, gt, inArray, isNotNull, isNull, lte, max, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { debtorKey, securedNameWords } from "../domain/names.ts";
import type { Db } from "./database.ts";
import { lenderStatements, lookedUp, securedPartiesWhere } from "./lenders.ts";
import { facetCutoffDay, queueKeyStatements, refreshQueued, storedRows } from "./load.ts";
import { facetDayRows, industrySet, traitsOf } from "./records.ts";
import {
  amendments,
  debtorParties,
  debtorReports,
  debtorsToRefresh,
  filings,
  securedParties,
  staleTallies,
} from "./schema.ts";
import { facetStatements } from "./tallies.ts";

/** Filing ids a page covers: with their parties, about a thousand rows read. */
const PAGE_IDS = 400;

/**
 * Changed filings written per D1 batch. A batch is one transaction, so a
 * filing's new keys, its facets' move and its debtors' queueing land
 * together or not at all: a run cut short never counts a facet twice.
 */
const FILINGS_PER_BATCH = 25;

export interface RekeySummary {
  /** Filings whose parties were read. */
  filings: number;
  /** Debtor rows whose name_key was rewritten. */
  debtors: number;
  /** Secured-party rows whose name_words were rewritten. */
  lenders: number;
  /** Filings whose traits (collateral categories, funding company) were rewritten. */
  traits: number;
  /** Filings whose secured parties' debtor industries were written. */
  industries: number;
  /** Report digests given their oldest live filing's time (built by a Worker before migration 0036). */
  digestTimes: number;
}

type Statement = BatchItem<"sqlite">;

/**
 * Statements moving the facets of the filings `ids` from their stored lender
 * words to the current ones: the difference of the filings' facets
 * (facetDayRows) before and after, which is their "l" and "o" facets and,
 * lapsing, their "k" facets only.
 * Facet rows left at zero go, as a fresh load never writes them. Reads the
 * filings, so it runs before their rows are rewritten.
 */
async function lenderFacetStatements(db: Db, ids: number[], cutoff: string): Promise<Statement[]> {
  if (ids.length === 0) return [];
  const [stored, debtors, lenders] = await db.batch([
    db.select().from(filings).where(inArray(filings.id, ids)),
    db.select().from(debtorParties).where(inArray(debtorParties.filingId, ids)),
    securedPartiesWhere(db, inArray(securedParties.filingId, ids)),
  ]);
  const before = storedRows(stored, debtors, lenders, []);
  const after = before.map((r) => ({
    ...r,
    securedParties: r.securedParties.map((s) => ({ ...s, nameWords: securedNameWords(s.name) })),
  }));
  return facetStatements(db, [...facetDayRows(before, cutoff, -1), ...facetDayRows(after, cutoff)]);
}

/**
 * The filings of a page whose traits (records.ts, traitsOf: collateral
 * categories and a funding company among the lenders) differ from those
 * stored, or were never stored (rows loaded before migration 0023), with
 * the traits the rules give now.
 */
function changedTraits(
  stored: { id: number; collateral: string | null; traits: number | null }[],
  amended: { filingId: number; number: string; filedAt: string; collateral: string | null }[],
  lenders: { filingId: number; name: string }[],
): { id: number; traits: number }[] {
  return stored.flatMap((f) => {
    const traits = traitsOf({
      collateral: f.collateral,
      amendments: amended.filter((a) => a.filingId === f.id),
      securedParties: lenders.filter((l) => l.filingId === f.id),
    });
    return traits === f.traits ? [] : [{ id: f.id, traits }];
  });
}

/** Re-keys the parties of filings with ids in (from, to], and brings their traits up to the rules. */
async function rekeyPage(db: Db, from: number, to: number, cutoff: string): Promise<Omit<RekeySummary, "digestTimes">> {
  const inPage = (id: SQLiteColumn) => and(gt(id, from), lte(id, to));
  const [debtors, lenders, stored, amended] = await db.batch([
    db
      .select({
        filingId: debtorParties.filingId,
        position: debtorParties.position,
        type: debtorParties.type,
        name: debtorParties.name,
        nameKey: debtorParties.nameKey,
        industry: debtorParties.industry,
      })
      .from(debtorParties)
      .where(and(gt(debtorParties.filingId, from), lte(debtorParties.filingId, to))),
    securedPartiesWhere(db, and(gt(securedParties.filingId, from), lte(securedParties.filingId, to))),
    db
      .select({ id: filings.id, collateral: filings.collateral, traits: filings.traits })
      .from(filings)
      .where(inPage(filings.id)),
    db
      .select({
        filingId: amendments.filingId,
        number: amendments.number,
        filedAt: amendments.filedAt,
        collateral: amendments.collateral,
      })
      .from(amendments)
      .where(and(inPage(amendments.filingId), isNotNull(amendments.collateral))),
  ]);
  const traits = changedTraits(stored, amended, lenders);
  // A filing's new traits and its debtors queued, whose report digests count them.
  for (let i = 0; i < traits.length; i += FILINGS_PER_BATCH * 4) {
    const part = traits.slice(i, i + FILINGS_PER_BATCH * 4);
    const ids = new Set(part.map((t) => t.id));
    await db.batch([
      ...part.map((t) => db.update(filings).set({ traits: t.traits }).where(eq(filings.id, t.id))),
      ...queueKeyStatements(
        db,
        debtors.filter((d) => ids.has(d.filingId)).map((d) => d.nameKey),
      ),
    ] as [Statement, ...Statement[]]);
  }
  const industries = changedIndustries(debtors, lenders);
  for (let i = 0; i < industries.length; i += FILINGS_PER_BATCH * 4) {
    const part = industries.slice(i, i + FILINGS_PER_BATCH * 4);
    const statements: Statement[] = part.map((f) =>
      db.update(securedParties).set({ debtorIndustries: f.industries }).where(eq(securedParties.filingId, f.id)),
    );
    await db.batch(statements as [Statement, ...Statement[]]);
  }
  const newDebtors = debtors.flatMap((d) => {
    const key = debtorKey(d.name, d.type);
    return key === d.nameKey ? [] : [{ ...d, key }];
  });
  const newLenders = lenders.flatMap((s) => {
    const words = securedNameWords(s.name);
    return words === s.nameWords ? [] : [{ ...s, words }];
  });
  const changed = [...new Set([...newDebtors, ...newLenders].map((p) => p.filingId))];
  for (let i = 0; i < changed.length; i += FILINGS_PER_BATCH) {
    const group = new Set(changed.slice(i, i + FILINGS_PER_BATCH));
    const rekeyed = new Set(newDebtors.filter((d) => group.has(d.filingId)).map((d) => d.filingId));
    const lenderFilings = [...new Set(newLenders.filter((s) => group.has(s.filingId)).map((s) => s.filingId))];
    // Every debtor of a filing whose debtor key changed, under both keys: the
    // co-debtors' links name the old key.
    const queued = debtors
      .filter((d) => rekeyed.has(d.filingId))
      .flatMap((d) => [d.nameKey, debtorKey(d.name, d.type)]);
    const renamed = newLenders.filter((s) => group.has(s.filingId)).map((s) => ({ ...s, nameWords: s.words }));
    const statements: Statement[] = [
      // The new words' names first: the facets under them and each party refer to their ids.
      ...lenderStatements(db, renamed),
      ...(await lenderFacetStatements(db, lenderFilings, cutoff)),
      ...newDebtors
        .filter((d) => group.has(d.filingId))
        .map((d) =>
          db
            .update(debtorParties)
            .set({ nameKey: d.key })
            .where(and(eq(debtorParties.filingId, d.filingId), eq(debtorParties.position, d.position))),
        ),
      ...newLenders
        .filter((s) => group.has(s.filingId))
        .map((s) =>
          db
            .update(securedParties)
            .set({ nameId: lookedUp.nameId(s.words) })
            .where(and(eq(securedParties.filingId, s.filingId), eq(securedParties.position, s.position))),
        ),
      ...queueKeyStatements(db, queued),
    ];
    await db.batch(statements as [Statement, ...Statement[]]);
  }
  if (changed.length > 0 || traits.length > 0) await refreshQueued(db);
  return {
    filings: new Set([...debtors, ...lenders].map((p) => p.filingId)).size,
    debtors: newDebtors.length,
    lenders: newLenders.length,
    traits: traits.length,
    industries: industries.length,
  };
}

/**
 * The filings of a page whose secured parties' debtor industries differ
 * from their debtors' (records.ts, industrySet), or were never stored
 * (rows loaded before migration 0031), with what their debtors give.
 */
function changedIndustries(
  debtors: { filingId: number; industry: string | null }[],
  lenders: { filingId: number; debtorIndustries: string | null }[],
): { id: number; industries: string }[] {
  const labels = new Map<number, (string | null)[]>();
  for (const d of debtors) {
    const held = labels.get(d.filingId);
    if (held) held.push(d.industry);
    else labels.set(d.filingId, [d.industry]);
  }
  const changed = new Map<number, string>();
  for (const s of lenders) {
    const industries = industrySet(labels.get(s.filingId) ?? []);
    // Any party of the filing that holds another set: its parties are written together.
    if (s.debtorIndustries !== industries) changed.set(s.filingId, industries);
  }
  return [...changed].map(([id, industries]) => ({ id, industries }));
}

/**
 * Re-keys every stored filing (see above), `pageIds` filing ids at a time,
 * calling `onPage` after each page with the totals so far and the ids done
 * of all. Facets of filings older than the recency window as of `now` go to
 * its shared bucket, as a load at `now` would put them.
 */
export async function rekeyStored(
  db: Db,
  options: {
    now?: Date;
    pageIds?: number;
    onPage?: (summary: RekeySummary, done: number, last: number) => void;
  } = {},
): Promise<RekeySummary> {
  const cutoff = facetCutoffDay(options.now ?? new Date());
  const pageIds = options.pageIds ?? PAGE_IDS;
  const [top] = await db.select({ id: max(filings.id) }).from(filings);
  const last = top?.id ?? 0;
  const summary: RekeySummary = { filings: 0, debtors: 0, lenders: 0, traits: 0, industries: 0, digestTimes: 0 };
  for (let from = 0; from < last; from += pageIds) {
    const to = Math.min(from + pageIds, last);
    const page = await rekeyPage(db, from, to, cutoff);
    summary.filings += page.filings;
    summary.debtors += page.debtors;
    summary.lenders += page.lenders;
    summary.traits += page.traits;
    summary.industries += page.industries;
    options.onPage?.(summary, to, last);
  }
  // What a run cut short between a page's writes and its refresh left behind.
  const [[queued], [stale]] = await db.batch([
    db.select({ one: sql`1` }).from(debtorsToRefresh).limit(1),
    db.select({ one: sql`1` }).from(staleTallies).limit(1),
  ]);
  if (queued || stale) await refreshQueued(db);
  summary.digestTimes = await fillDigestTimes(db);
  return summary;
}

/** Digests given their time a statement, at most: its returned keys stay small. */
const DIGEST_TIMES_AT_ONCE = 5_000;

/**
 * Gives each report digest without its oldest live filing's time (one a
 * Worker before migration 0036 built, during the deploy) that filing's time,
 * which a report otherwise reads from the filing itself (src/report/query.ts):
 * a pass over the digests and a row written for each such one, in statements
 * of at most DIGEST_TIMES_AT_ONCE.
 */
async function fillDigestTimes(db: Db): Promise<number> {
  const untimed = and(isNotNull(debtorReports.firstActive), isNull(debtorReports.firstActiveAt));
  let filled = 0;
  for (;;) {
    const rows = await db
      .update(debtorReports)
      .set({
        firstActiveAt: sql`(select ${filings.filedAt} from ${filings} where ${filings.id} = ${debtorReports.firstActive})`,
      })
      .where(
        sql`(${debtorReports.nameKey}, ${debtorReports.state}) in (select ${debtorReports.nameKey}, ${debtorReports.state} from ${debtorReports} where ${untimed} limit ${DIGEST_TIMES_AT_ONCE})`,
      )
      .returning({ key: debtorReports.nameKey });
    filled += rows.length;
    if (rows.length < DIGEST_TIMES_AT_ONCE) return filled;
  }
}
