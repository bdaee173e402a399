/**
 * Writing filings, and keeping what is derived from them consistent. Used by
 * the seed script, the importer and test fixtures, so all of them write the
 * same rows the same way.
 *
 * A load writes, in one D1 batch per group of filings:
 * - the filings, their parties and amendments (rows from records.ts);
 * - facet counts by day and their tallies (schema.ts, facetCounts;
 *   tallies.ts): added for new filings, subtracted for replaced ones, and
 *   the states' summaries from them;
 * - the debtors touched, queued in debtors_to_refresh;
 * and then `refreshStatements` rebuilds the per-debtor aggregates (names,
 * addresses and address sets, co-debtor links, lien report digests) of the queued debtors from their parties, and
 * the tallies the batches left stale. Rebuilding from the parties, rather than adding
 * to the aggregates, is what lets a replaced filing take back what it gave.
 * Last come the sound keys of similar-name search (soundKeys.ts), which
 * point at debtor_names rows by id: the refresh updates a debtor's row in
 * place, so its id, and the keys already written for it, stay valid.
 */

import { and, eq, getTableColumns, inArray, notExists, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import {
  alias,
  type SQLiteColumn,
  type SQLiteInsertValue,
  type SQLiteTable,
  type SQLiteUpdateSetSource,
  union,
} from "drizzle-orm/sqlite-core";
import { lapsedThrough } from "../domain/lifecycle.ts";
import { isoSeconds, recentWindowStart } from "../domain/time.ts";
import { type ChangeRow, changeStatements, changesOf } from "./changeRows.ts";
import { D1_MAX_PARAMS, type Db } from "./database.ts";
import { integerCodeParams, packedAddressKeys, withIntegerCodes } from "./encodings.ts";
import { type LenderRefs, lenderStatements, lookedUp, securedPartiesWhere, securedRow } from "./lenders.ts";
import { inLapseWindow, listedText } from "./listed.ts";
import {
  ANY_FACET,
  type FilingRecord,
  type FilingRows,
  facetDayRows,
  industrySet,
  soundKeyRows,
  toRows,
} from "./records.ts";
import { digestStatements } from "./reports.ts";
import {
  type Amendment,
  amendments,
  changeMarks,
  type DebtorParty,
  dataLoads,
  debtorAddresses,
  debtorAddressSets,
  debtorLinkSets,
  debtorLinks,
  debtorNames,
  debtorParties,
  debtorsToRefresh,
  type Filing,
  facetCounts,
  facetTallies,
  filings,
  pendingAmendments,
  type SecuredParty,
  securedParties,
  stateBackfills,
  stateLoads,
  stateSummaries,
} from "./schema.ts";
import { soundKeyStatements } from "./soundKeys.ts";
import { facetStatements, monthRow, tallyRefreshStatements, tiedToNext } from "./tallies.ts";

type Statement = BatchItem<"sqlite">;

/** Statements sent in one D1 batch (one round trip, one transaction). */
const STATEMENTS_PER_BATCH = 400;
/** Filings converted to rows at a time, to bound memory on large loads. */
export const FILINGS_PER_GROUP = 500;

function chunk<T>(rows: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/**
 * Most co-debtors a debtor's set lists (debtor_link_sets.entries): at about
 * 35 bytes a key, 20,000 keep its row under a megabyte (D1 holds a row of
 * up to 2 MB). A debtor with more is counted from its links.
 */
const LINK_SET_MAX = 20_000;

/** First day kept at day resolution in facet_tallies for a load at `now`. */
export function facetCutoffDay(now: Date | number): string {
  return recentWindowStart(now).slice(0, 10);
}

/**
 * The rows `rows` add to each table: the filings (each with its list of
 * lenders), their parties and amendments; names and lenders referred to
 * as `refs` says (src/db/lenders.ts), after lenderStatements wrote them.
 */
export function tableRows(rows: FilingRows[], refs: LenderRefs = lookedUp) {
  return [
    {
      table: filings,
      rows: rows.map((r) => ({ ...r.filing, lenders: refs.lenders(r.securedParties), listed: r.listed ?? null })),
    },
    { table: debtorParties, rows: rows.flatMap((r) => r.debtors) },
    { table: securedParties, rows: rows.flatMap((r) => r.securedParties.map((s) => securedRow(s, refs))) },
    { table: amendments, rows: rows.flatMap((r) => r.amendments) },
  ] as const;
}

/** The lenders `rows` name, then multi-row INSERTs of tableRows(`rows`), each within `maxParams` bound parameters. */
function insertStatements(db: Db, rows: FilingRows[], maxParams = D1_MAX_PARAMS): Statement[] {
  return [
    ...lenderStatements(
      db,
      rows.flatMap((r) => r.securedParties),
    ),
    ...tableRows(rows).flatMap((set) => insertChunks(db, set.table, set.rows, maxParams)),
  ];
}

function insertChunks<T extends SQLiteTable>(
  db: Db,
  table: T,
  rows: SQLiteInsertValue<T>[],
  maxParams: number,
): Statement[] {
  const [first] = rows;
  if (!first) return [];
  const perRow = Object.keys(first).length + integerCodeParams(table);
  return chunk(
    withIntegerCodes(table, rows as Record<string, unknown>[]) as SQLiteInsertValue<T>[],
    Math.floor(maxParams / perRow),
  ).map((part) => db.insert(table).values(part));
}

/** The states of `rows`, each once. */
const statesOf = (rows: FilingRows[]) => [...new Set(rows.map((r) => r.filing.state))];

/** Queues the debtors named in `rows` for refreshStatements. */
function queueDebtorStatements(db: Db, rows: FilingRows[]): Statement[] {
  return queueKeyStatements(
    db,
    rows.flatMap((r) => r.debtors.map((d) => d.nameKey)),
  );
}

/** Queues the debtors of `keys` (match keys) for refreshStatements. */
export function queueKeyStatements(db: Db, keys: string[], maxParams = D1_MAX_PARAMS): Statement[] {
  const rows = [...new Set(keys)].map((nameKey) => ({ nameKey }));
  return chunk(rows, maxParams).map((part) => db.insert(debtorsToRefresh).values(part).onConflictDoNothing());
}

/**
 * Rewrites the state_summaries rows (schema.ts) of `states` as of `now`:
 * those given (a load's, in the batch that counts its filings), or every
 * state the shard has counted, loaded or begun to backfill. One statement,
 * a few rows a state (and its "x" facet's months and this month's days).
 */
export function stateSummaryStatement(db: Db, states: string[] | "all", now: Date = new Date()): Statement {
  const f = facetCounts;
  const stateOf = (column: SQLiteColumn | SQL) => sql<string>`${column}`.as("state");
  const totals = db
    .select({ state: stateOf(f.place) })
    .from(f)
    .where(and(eq(f.scope, "s"), eq(f.name, ""), eq(f.facet, ANY_FACET)));
  const chosen = (
    states === "all"
      ? union(
          totals,
          db.select({ state: stateOf(stateLoads.state) }).from(stateLoads),
          db.select({ state: stateOf(stateBackfills.state) }).from(stateBackfills),
        )
      : db.select({ state: stateOf(sql`value`) }).from(sql`json_each(${JSON.stringify(states)})`)
  ).as("chosen");
  const state = sql<string>`"chosen"."state"`;
  /** A facet's total of the chosen state (its whole-place facet of `scope`, name "" and `facet`). */
  const total = (scope: "s" | "x", facet: string) =>
    sql<number>`coalesce((select ${f.filings} from ${f} where ${f.scope} = ${scope} and ${f.place} = ${state} and ${f.name} = '' and ${f.facet} = ${facet}), 0)`;
  // Live filings lapsed as of today, those whose lapse date has ended (lapsedThrough): the "x" facet's
  // months before that day's and its month's days through it (src/db/tallies.ts).
  const through = lapsedThrough(now.toISOString().slice(0, 10));
  const x = facetTallies;
  const lapsedIn = (from: string, to: SQL) =>
    sql<number>`coalesce((select sum(${x.filings}) from ${x} where ${x.scope} = 'x' and ${x.place} = ${state} and ${x.name} = '' and ${x.facet} = ''
      and ${x.day} >= ${from} and ${x.day} < ${to}), 0)`;
  const lapsed = sql<number>`${lapsedIn(`m`, sql`${monthRow(through)}`)} + ${lapsedIn(through.slice(0, 7), sql`${through} || '~'`)}`;
  return db
    .insert(stateSummaries)
    .select(
      db
        .select({
          state: state.as("state"),
          filings: total("s", ANY_FACET).as("filings"),
          live: total("x", "").as("live"),
          lapsed: lapsed.as("lapsed"),
          lapsedOn: sql<string>`${through}`.as("lapsed_on"),
          newestFiledAt:
            sql<number>`(select max(${filings.filedAt}) from ${filings} where ${filings.state} = ${state})`.as(
              "newest_filed_at",
            ),
          lastLoadedAt: stateLoads.lastLoadedAt,
          officeThrough: stateLoads.officeThrough,
          backfillBeganAt: stateBackfills.beganAt,
          backfillCompletedAt: stateBackfills.completedAt,
        })
        .from(chosen)
        .leftJoin(stateLoads, eq(stateLoads.state, state))
        .leftJoin(stateBackfills, eq(stateBackfills.state, state))
        // The WHERE also keeps SQLite from reading the upsert's ON as a join's.
        .where(sql`true`),
    )
    .onConflictDoUpdate({
      target: stateSummaries.state,
      set: {
        filings: sql`excluded.filings`,
        live: sql`excluded.live`,
        lapsed: sql`excluded.lapsed`,
        lapsedOn: sql`excluded.lapsed_on`,
        newestFiledAt: sql`excluded.newest_filed_at`,
        lastLoadedAt: sql`excluded.last_loaded_at`,
        officeThrough: sql`excluded.office_through`,
        backfillBeganAt: sql`excluded.backfill_began_at`,
        backfillCompletedAt: sql`excluded.backfill_completed_at`,
      },
    });
}

/** A column's name as stored (columns are declared by their keys, stored snake_case). */
const storedName = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Whether a row's columns `columns` (keys) differ from those an upsert offers (`excluded`), nulls compared as values. */
function differs(table: SQLiteTable, columns: string[]): SQL {
  const mine = sql.join(
    columns.map((c) => sql`${table}.${sql.identifier(storedName(c))}`),
    sql`, `,
  );
  const offered = sql.join(
    columns.map((c) => sql`excluded.${sql.identifier(storedName(c))}`),
    sql`, `,
  );
  return sql`(${mine}) is not (${offered})`;
}

/**
 * Statements that make `table`'s rows of the queued debtors (`queued`, a
 * condition on its debtor key column) those `fresh` selects, in the
 * table's column order. Every debtor (`all`, after a bulk load): deleted
 * and written whole. Otherwise only what changed: a row whose key `fresh`
 * no longer has is deleted, and a fresh row is inserted, or written over
 * the row of its key where one of its columns `kept` differs; a row the
 * load left as it was is not written (D1 bills each row written).
 */
function rebuilt<T extends SQLiteTable>(
  db: Db,
  all: boolean,
  r: { table: T; key: SQLiteColumn[]; kept: (keyof T["$inferInsert"] & string)[]; queued: SQL | undefined; fresh: SQL },
): Statement[] {
  if (all) return [db.delete(r.table), db.insert(r.table).select(r.fresh)];
  const keys = sql.join(
    r.key.map((c) => sql.identifier(storedName(c.name))),
    sql`, `,
  );
  const set = Object.fromEntries(r.kept.map((c) => [c, sql`excluded.${sql.identifier(storedName(c))}`]));
  return [
    db
      .delete(r.table)
      .where(and(r.queued, sql`(${sql.join(r.key, sql`, `)}) not in (select ${keys} from (${r.fresh}))`)),
    db
      .insert(r.table)
      .select(r.fresh)
      .onConflictDoUpdate({
        target: r.key,
        set: set as SQLiteUpdateSetSource<T>,
        setWhere: differs(r.table, r.kept),
      }),
  ];
}

/**
 * Rebuilds the aggregates of the queued debtors (or of every debtor, with
 * `all`, after a bulk load; or of the debtors `keys` names, a part of the
 * queue read first: see refreshQueued) from their parties, and recomputes
 * the tallies the loads left stale (tallies.ts). With `keys`, the queue is left
 * as it is: refreshQueued removes those keys once their sound keys are
 * written too.
 */
export function refreshStatements(db: Db, { all = false, keys }: { all?: boolean; keys?: string[] } = {}): Statement[] {
  const listed = keys && JSON.stringify(keys);
  const queued = (nameKey: SQLiteColumn) =>
    all
      ? undefined
      : listed !== undefined
        ? sql`${nameKey} in (select value from json_each(${listed}))`
        : inArray(nameKey, db.select({ nameKey: debtorsToRefresh.nameKey }).from(debtorsToRefresh));
  const self = alias(debtorParties, "self");
  const other = alias(debtorParties, "other");
  // Columns next to max() come from the row holding the max (SQLite), so
  // each aggregate shows its most recent spelling and address; the filing
  // id in the max makes the latest-loaded filing win ties. Filing times
  // are stored as seconds (encodings.ts), filing ids stay under 10^9, and
  // the product stays under 2^63 until the year 2262.
  const latest = (t: { filedAt: SQLiteColumn; filingId: SQLiteColumn }) =>
    sql<number>`max(${t.filedAt} * 1000000000 + ${t.filingId}) / 1000000000`;
  const lastFiled = latest(debtorParties);
  const lastSeen = latest(other);
  const entryKey = sql`${debtorLinks.otherKey} || '|' || ${debtorLinks.otherAddressKey}`;
  return [
    // Names are updated in place (and only those with no filing left are
    // deleted), so a debtor keeps its id and its sound keys stay valid.
    db.delete(debtorNames).where(
      and(
        queued(debtorNames.nameKey),
        notExists(
          db
            .select({ one: sql`1` })
            .from(debtorParties)
            .where(
              and(eq(debtorParties.nameKey, debtorNames.nameKey), eq(debtorParties.filingState, debtorNames.state)),
            ),
        ),
      ),
    ),
    db
      .insert(debtorNames)
      .select(
        db
          .select({
            id: sql<number>`null`.as("id"),
            nameKey: debtorParties.nameKey,
            state: debtorParties.filingState,
            name: debtorParties.name,
            lastFiledAt: lastFiled.as("last_filed_at"),
            filingCount: sql<number>`count(distinct ${debtorParties.filingId})`.as("filing_count"),
          })
          .from(debtorParties)
          // The WHERE also keeps SQLite from reading the upsert's ON as a join's.
          .where(and(sql`${debtorParties.nameKey} <> ''`, queued(debtorParties.nameKey)))
          .groupBy(debtorParties.nameKey, debtorParties.filingState)
          // New names are numbered in key order: similar-name search cuts a
          // sound key's names in a state by id (docs/fan-out.md).
          .orderBy(debtorParties.nameKey, debtorParties.filingState),
      )
      .onConflictDoUpdate({
        target: [debtorNames.nameKey, debtorNames.state],
        set: {
          name: sql`excluded.name`,
          lastFiledAt: sql`excluded.last_filed_at`,
          filingCount: sql`excluded.filing_count`,
        },
        // A name the load left as it was is not written again (D1 bills each row written).
        setWhere: differs(debtorNames, ["name", "lastFiledAt", "filingCount"]),
      }),
    // Each debtor's addresses, its address set, its co-debtor links and their
    // set: after a bulk load, every one written afresh; after a load, only
    // the rows that are new or moved, and those gone deleted (a debtor with
    // hundreds of addresses gains one with a new filing, and writes one).
    ...rebuilt(db, all, {
      table: debtorAddresses,
      key: [debtorAddresses.nameKey, debtorAddresses.lastUsed, debtorAddresses.addressKey],
      kept: ["street1", "street2", "city", "state", "zip"],
      queued: queued(debtorAddresses.nameKey),
      fresh: db
        .select({
          nameKey: debtorParties.nameKey,
          addressKey: debtorParties.addressKey,
          lastUsed: lastFiled.as("last_used"),
          street1: debtorParties.street1,
          street2: debtorParties.street2,
          city: debtorParties.city,
          state: debtorParties.state,
          zip: debtorParties.zip,
        })
        .from(debtorParties)
        .where(queued(debtorParties.nameKey))
        .groupBy(debtorParties.nameKey, debtorParties.addressKey)
        .getSQL(),
    }),
    // Each debtor's address keys, packed into one row, from the rows just written.
    ...rebuilt(db, all, {
      table: debtorAddressSets,
      key: [debtorAddressSets.nameKey],
      kept: ["addressKeys"],
      queued: queued(debtorAddressSets.nameKey),
      fresh: db
        .select({
          nameKey: debtorAddresses.nameKey,
          addressKeys: packedAddressKeys(debtorAddresses.addressKey).as("address_keys"),
        })
        .from(debtorAddresses)
        .where(queued(debtorAddresses.nameKey))
        .groupBy(debtorAddresses.nameKey)
        .getSQL(),
    }),
    ...rebuilt(db, all, {
      table: debtorLinks,
      key: [debtorLinks.nameKey, debtorLinks.filingState, debtorLinks.otherKey, debtorLinks.otherAddressKey],
      kept: ["lastSeen", "name", "street1", "street2", "city", "state", "zip"],
      queued: queued(debtorLinks.nameKey),
      fresh: db
        .select({
          nameKey: self.nameKey,
          filingState: self.filingState,
          otherKey: sql<string>`${other.nameKey}`.as("other_key"),
          otherAddressKey: sql<number>`${other.addressKey}`.as("other_address_key"),
          lastSeen: lastSeen.as("last_seen"),
          name: other.name,
          street1: other.street1,
          street2: other.street2,
          city: other.city,
          state: other.state,
          zip: other.zip,
        })
        .from(self)
        .innerJoin(other, and(eq(other.filingId, self.filingId), sql`${other.nameKey} <> ${self.nameKey}`))
        .where(queued(self.nameKey))
        .groupBy(self.nameKey, self.filingState, other.nameKey, other.addressKey)
        .getSQL(),
    }),
    // Each debtor's co-debtor count and keys in each state (in key order), from the links just written.
    ...rebuilt(db, all, {
      table: debtorLinkSets,
      key: [debtorLinkSets.nameKey, debtorLinkSets.filingState],
      kept: ["links", "entries"],
      queued: queued(debtorLinkSets.nameKey),
      fresh: db
        .select({
          nameKey: debtorLinks.nameKey,
          filingState: debtorLinks.filingState,
          links: sql<number>`count(*)`.as("links"),
          entries:
            sql<string>`case when count(*) <= ${LINK_SET_MAX} then json_group_array(${entryKey} order by ${entryKey}) end`.as(
              "entries",
            ),
        })
        .from(debtorLinks)
        .where(queued(debtorLinks.nameKey))
        .groupBy(debtorLinks.nameKey, debtorLinks.filingState)
        .getSQL(),
    }),
    // The lien report's digests of the same debtors (src/db/reports.ts).
    ...digestStatements(
      db,
      all
        ? undefined
        : listed !== undefined
          ? (nameKey) => sql`${nameKey} in (select value from json_each(${listed}))`
          : (nameKey) => sql`${nameKey} in (select ${debtorsToRefresh.nameKey} from ${debtorsToRefresh})`,
    ),
    ...(listed === undefined ? [db.delete(debtorsToRefresh)] : []),
    // The summaries of every state after a bulk load (a load's own are written with its filings).
    ...(all ? [stateSummaryStatement(db, "all")] : []),
    // The tallies the loads left stale (src/db/tallies.ts): every facet's after a bulk load.
    ...tallyRefreshStatements(db, all),
  ];
}

/** Queued debtors refreshed per batch by refreshQueued, when the caller names no limit. */
const REFRESH_KEYS = 5_000;

/**
 * Rebuilds what loads with `refresh: false` left queued (see
 * refreshStatements), a part of the queue at a time: the first keys by
 * name key are read, then their spellings (the sound keys need the
 * debtor_names ids the refresh assigns), then their aggregates and sound
 * keys are written and those keys, and only those, leave the queue. A
 * load that queues more meanwhile (two loads at once) keeps its keys for
 * itself or for the next part. With `limit`, one part of at most `limit`
 * keys (a step of the platform's load calls it until the queue is empty;
 * names get their ids in the same order as in one call), returning whether
 * debtors are still queued; without, every part until the queue is empty.
 * `onPart` is told how many keys each part took.
 */
export async function refreshQueued(
  db: Db,
  { limit, onPart }: { limit?: number; onPart?: (keys: number) => void } = {},
): Promise<boolean> {
  for (;;) {
    const keys = (
      await db
        .select({ nameKey: debtorsToRefresh.nameKey })
        .from(debtorsToRefresh)
        .orderBy(debtorsToRefresh.nameKey)
        .limit(limit ?? REFRESH_KEYS)
    ).map((r) => r.nameKey);
    if (keys.length === 0) return false;
    const spellings = await db
      .selectDistinct({
        name: debtorParties.name,
        nameKey: debtorParties.nameKey,
        filingState: debtorParties.filingState,
      })
      .from(debtorParties)
      .where(
        and(
          sql`${debtorParties.nameKey} <> ''`,
          sql`${debtorParties.nameKey} in (select value from json_each(${JSON.stringify(keys)}))`,
        ),
      );
    await runBatches(db, [
      ...refreshStatements(db, { keys }),
      ...soundKeyStatements(db, soundKeyRows(spellings)),
      // Last: a batch that fails leaves the keys queued for the next refresh.
      db
        .delete(debtorsToRefresh)
        .where(sql`${debtorsToRefresh.nameKey} in (select value from json_each(${JSON.stringify(keys)}))`),
    ]);
    onPart?.(keys.length);
    if (limit !== undefined) {
      const [more] = await db.select({ nameKey: debtorsToRefresh.nameKey }).from(debtorsToRefresh).limit(1);
      return more !== undefined;
    }
  }
}

/** Runs `statements` in batches of at most STATEMENTS_PER_BATCH, never between two tied together (tiedToNext). */
async function runBatches(db: Db, statements: Statement[]) {
  const tied = (i: number) => {
    const statement = statements[i];
    return statement !== undefined && tiedToNext.has(statement);
  };
  for (let start = 0; start < statements.length; ) {
    let end = Math.min(start + STATEMENTS_PER_BATCH, statements.length);
    while (end < statements.length && end - start > 1 && tied(end - 1)) end -= 1;
    await db.batch(statements.slice(start, end) as [Statement, ...Statement[]]);
    start = end;
  }
}

/** Groups of `size` items from any iterable, without materializing it. */
export function* groups<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let group: T[] = [];
  for (const item of items) {
    group.push(item);
    if (group.length === size) {
      yield group;
      group = [];
    }
  }
  if (group.length > 0) yield group;
}

/**
 * Inserts new `records` with consecutive ids from `firstId` (the caller
 * knows they are new: test fixtures). Records may come from a generator, so
 * large loads stream.
 */
export async function insertFilings(
  db: Db,
  records: Iterable<FilingRecord>,
  firstId: number,
  onProgress?: (written: number) => void,
  now: Date = new Date(),
): Promise<number> {
  let written = 0;
  const cutoff = facetCutoffDay(now);
  for (const group of groups(records, FILINGS_PER_GROUP)) {
    const rows = group.map((r, i) => toRows(r, firstId + written + i));
    // Each records its change: the feed lists it, from its listed form.
    for (const r of rows) r.listed = listedText(r);
    await runBatches(db, [
      ...insertStatements(db, rows),
      ...changeStatements(
        db,
        rows.flatMap((r) => changesOf(undefined, r)),
      ),
      ...facetStatements(db, facetDayRows(rows, cutoff)),
      stateSummaryStatement(db, statesOf(rows), now),
      ...queueDebtorStatements(db, rows),
      ...refreshStatements(db),
      ...soundKeyStatements(db, soundKeyRows(rows.flatMap((r) => r.debtors))),
    ]);
    written += group.length;
    onProgress?.(written);
  }
  return written;
}

/** The states a load touched, each with the office's as-of date when its feed gave one. */
export type LoadedStates = ReadonlyMap<string, string | null>;

/**
 * Records a completed data load: its time becomes `data_source_last_updated`,
 * and each state it touched is marked loaded then (state_loads, GET
 * /states), with the office's as-of date when known (a later load without
 * one keeps the earlier).
 */
export async function recordLoad(
  db: Db,
  source: string,
  count: number,
  at = new Date(),
  states: LoadedStates = new Map(),
) {
  const loadedAt = isoSeconds(at);
  const rows = [...states].map(([state, officeThrough]) => ({ state, lastLoadedAt: loadedAt, officeThrough }));
  await db.batch([
    db.insert(dataLoads).values({ source, loadedAt, filings: count }),
    ...chunk(rows, Math.floor(D1_MAX_PARAMS / 3)).map((part) =>
      db
        .insert(stateLoads)
        .values(part)
        .onConflictDoUpdate({
          target: stateLoads.state,
          set: {
            lastLoadedAt: sql`excluded.last_loaded_at`,
            officeThrough: sql`coalesce(excluded.office_through, ${stateLoads.officeThrough})`,
          },
        }),
    ),
    stateSummaryStatement(db, [...states.keys()], at),
  ]);
}

export interface LoadSummary {
  inserted: number;
  updated: number;
  unchanged: number;
}

/**
 * Statements, for one batch, reading the stored filings numbered `numbers`
 * (in any state) with their parties and amendments in filing order;
 * storedRows() groups their answers by filing.
 */
export function storedFilingStatements(db: Db, numbers: string[]) {
  const byNumber = inArray(filings.number, numbers);
  const ids = db.select({ id: filings.id }).from(filings).where(byNumber);
  return [
    db.select().from(filings).where(byNumber),
    db
      .select()
      .from(debtorParties)
      .where(inArray(debtorParties.filingId, ids))
      .orderBy(debtorParties.filingId, debtorParties.position),
    securedPartiesWhere(db, inArray(securedParties.filingId, ids)),
    db
      .select()
      .from(amendments)
      .where(inArray(amendments.filingId, ids))
      .orderBy(amendments.filingId, amendments.position),
  ] as const;
}

/** The answers of storedFilingStatements, as each stored filing's rows. */
export function storedRows(
  stored: (Filing & { lenders?: string; listed?: string | null })[],
  debtors: DebtorParty[],
  secured: SecuredParty[],
  changes: Amendment[],
): FilingRows[] {
  return stored.map(({ lenders: _, listed, ...filing }) => {
    const own = debtors.filter((d) => d.filingId === filing.id);
    // Rows stored before migration 0031 hold no industries: read as what a
    // load writes, so reloading them changes nothing (db:rekey fills them).
    const industries = industrySet(own.map((d) => d.industry));
    return {
      filing,
      listed: listed ?? null,
      debtors: own,
      securedParties: secured
        .filter((s) => s.filingId === filing.id)
        .map((s) => (s.debtorIndustries === null ? { ...s, debtorIndustries: industries } : s)),
      amendments: changes.filter((a) => a.filingId === filing.id),
    };
  });
}

/** Filings looked up and written per round trip pair by upsertFilings. */
const UPSERT_GROUP = 100;

/** A filing's rows without row ids or revision, as comparable text. */
function fingerprint(rows: FilingRows): string {
  return [
    rowText(rows.filing),
    ...rows.debtors.map(rowText),
    "|",
    ...rows.securedParties.map(rowText),
    "|",
    ...rows.amendments.map(rowText),
  ].join("\n");
}

/** A row without its filing's id or revision, as comparable text. */
function rowText(row: object): string {
  const { id: _, revision: __, ...rest } = row as { id?: unknown; revision?: unknown };
  return JSON.stringify(rest, Object.keys(rest).sort());
}

/**
 * How a write names the filings it inserts. SQLite gives them their ids
 * inside the transaction that writes them, so two loads at once never take
 * the same id (an id worked out from max(id) before the write would be
 * taken by whichever load committed first): each new filing is inserted
 * with a null id, in order and after the write's replaced filings, so the
 * k-th of `fresh` takes the largest id so far plus one. Until then it is
 * the placeholder -k, and its parties, amendments and changes name it as
 * max(id) - (fresh - k), which nothing else changes during the transaction.
 * The offset is bound, one parameter like the id it stands for, so
 * batches of the same shape send the same statement text.
 */
function newFilingIds(fresh: number) {
  const maxId = sql`(select max(${filings.id}) from ${filings})`;
  return {
    /** The id column of a filing row: null (SQLite assigns it) for a new one. */
    own: (id: number): number | SQL => (id > 0 ? id : sql`null`),
    /** A reference to a filing's id from another row. */
    ref: (id: number): number | SQL => (id > 0 ? id : sql`${maxId} - ${fresh + id}`),
  };
}

/** The rows `rows` add to each table (tableRows), with new filings named as newFilingIds says. */
function placedRows(rows: FilingRows[], fresh: number) {
  const ids = newFilingIds(fresh);
  const child = <T extends { filingId: number }>(row: T) => ({ ...row, filingId: ids.ref(row.filingId) });
  const [filed, debtors, secured, amended] = tableRows(rows);
  return [
    { table: filed.table, rows: filed.rows.map((r) => ({ ...r, id: ids.own(r.id) })) },
    { table: debtors.table, rows: debtors.rows.map(child) },
    { table: secured.table, rows: secured.rows.map(child) },
    { table: amended.table, rows: amended.rows.map(child) },
  ] as const;
}

/**
 * Whether `err` is a write that lost a race with another load: a filing it
 * meant to insert is there now, or one it meant to replace is no longer the
 * revision it read (the replaced row is still there, so its insert
 * collides). The whole batch rolled back; reading again and writing the
 * difference resolves it.
 */
function lostRace(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    if (/UNIQUE constraint failed: filings\./.test(e.message)) return true;
  }
  return false;
}

/** Attempts at one group before a lost race is reported as an error: each loss means another load committed. */
const WRITE_ATTEMPTS = 10;

export async function upsertFilings(
  db: Db,
  records: Iterable<FilingRecord>,
  options: {
    source?: string;
    now?: Date;
    onProgress?: (done: number) => void;
    /** False when the caller records one load for several calls. */
    record?: boolean;
    /**
     * False to leave the queued debtors and stale tallies for one
     * refreshQueued() after many calls (a local import); until then the
     * aggregates and counts lag the filings.
     */
    refresh?: boolean;
    /** False to record no change-feed rows (a backfill: scripts/bulk/import.ts). */
    recordChanges?: boolean;
    /** States being backfilled (src/feed/backfills.ts): their filings record no change-feed rows. */
    backfilling?: ReadonlySet<string>;
    /** Told of new filings that amendments were found waiting for as they were written (see upsertGroup). */
    onWaiting?: (filings: { state: string; number: string }[]) => void;
  } = {},
): Promise<LoadSummary> {
  const now = options.now ?? new Date();
  const summary: LoadSummary = { inserted: 0, updated: 0, unchanged: 0 };
  let done = 0;
  const states = new Set<string>();
  for (const group of groups(records, UPSERT_GROUP)) {
    for (const r of group) states.add(r.state.toUpperCase());
    // Read, compare and write again if another load wrote one of these
    // filings between this read and this write (lostRace).
    for (let attempt = 1; ; attempt++) {
      try {
        const counts = await upsertGroup(db, group, now, options);
        summary.inserted += counts.inserted;
        summary.updated += counts.updated;
        summary.unchanged += counts.unchanged;
        break;
      } catch (err) {
        if (!lostRace(err) || attempt >= WRITE_ATTEMPTS) throw err;
      }
    }
    done += group.length;
    options.onProgress?.(done);
  }
  if (options.record !== false) {
    const loaded = new Map([...states].map((state) => [state, null]));
    await recordLoad(db, options.source ?? "import", summary.inserted + summary.updated, now, loaded);
  }
  return summary;
}

/**
 * One group of upsertFilings: one round trip reading the stored versions of
 * its filings, one batch writing the difference (two when the aggregates
 * do not fit beside it). The batch inserts each new filing and replaces
 * each changed one only if no other load did so since the read; otherwise
 * it fails whole (lostRace).
 */
async function upsertGroup(
  db: Db,
  group: FilingRecord[],
  now: Date,
  options: Parameters<typeof upsertFilings>[2] & object,
): Promise<LoadSummary> {
  const counts: LoadSummary = { inserted: 0, updated: 0, unchanged: 0 };
  const cutoff = facetCutoffDay(now);
  const latest = new Map(group.map((r) => [`${r.state.toUpperCase()}\u0000${r.number}`, r]));
  // By number alone (one bound parameter each; numbers rarely repeat
  // across states), then matched on state too below.
  // With the day the daily job's lapses are done through: a lapse date moved behind it is this load's to record.
  const [old, oldDebtors, oldSecured, oldAmendments, marks] = await db.batch([
    ...storedFilingStatements(db, [...new Set(group.map((r) => r.number))]),
    db.select({ through: changeMarks.lapsesThrough }).from(changeMarks).where(eq(changeMarks.id, 1)),
  ]);
  const lapsesThrough = marks[0]?.through ?? null;
  const oldRows = new Map<string, FilingRows>(
    storedRows(old, oldDebtors, oldSecured, oldAmendments).map((r) => [`${r.filing.state}\u0000${r.filing.number}`, r]),
  );
  const replacedRows: FilingRows[] = [];
  const newRows: FilingRows[] = [];
  const removed: FilingRows[] = [];
  const changed: ChangeRow[] = [];
  for (const [key, record] of latest) {
    const before = oldRows.get(key);
    if (!before) {
      const after = toRows(record, -(newRows.length + 1));
      newRows.push(after);
      counts.inserted += 1;
      const records = recordsChanges(options, after.filing.state);
      if (records) changed.push(...changesOf(undefined, after));
      // The feed lists it from its listed form, and so does a lapse list if it lapses soon.
      if (records || inLapseWindow(after.filing, now)) after.listed = listedText(after);
      continue;
    }
    const after = toRows(record, before.filing.id);
    if (fingerprint(before) === fingerprint(after)) {
      counts.unchanged += 1;
      continue;
    }
    after.filing.revision = before.filing.revision + 1;
    removed.push(before);
    replacedRows.push(after);
    counts.updated += 1;
    const records = recordsChanges(options, after.filing.state);
    if (records) changed.push(...changesOf(before, after, lapsesThrough));
    // A filing the change feed or a lapse list reads gets its listed form; one it has is kept current, whatever the load.
    if (records || before.listed != null || inLapseWindow(after.filing, now)) after.listed = listedText(after);
  }
  const added = [...replacedRows, ...newRows];
  if (added.length === 0) return counts;
  const ids = newFilingIds(newRows.length);
  // The rows, their changes and their counts: one transaction, so a
  // change is seen exactly when what it describes is.
  const data = [
    ...lenderStatements(
      db,
      added.flatMap((r) => r.securedParties),
    ),
    // Changed filings in place, each row only where it differs (replacedStatements);
    // then the new ones, which take ids after the largest (newFilingIds).
    ...replacedStatements(db, removed, replacedRows),
    ...placedRows(newRows, newRows.length).flatMap((set) => insertChunks(db, set.table, set.rows, D1_MAX_PARAMS)),
    ...changeStatements(db, changed, D1_MAX_PARAMS, ids.ref),
    ...facetStatements(db, [...facetDayRows(removed, cutoff, -1), ...facetDayRows(added, cutoff)]),
    // The states' summaries, from the totals just written (GET /states).
    stateSummaryStatement(db, statesOf(added), now),
    ...queueDebtorStatements(db, [...removed, ...added]),
  ];
  // Amendments waiting for a filing this write inserts, as the transaction
  // sees them: one kept by another load after this load read what waits
  // is found here, in the write, and the caller applies it (writeGroup).
  const waiting =
    newRows.length > 0 && options.onWaiting
      ? db
          .select({ state: pendingAmendments.state, number: pendingAmendments.filingNumber })
          .from(pendingAmendments)
          .where(
            sql`(${pendingAmendments.state}, ${pendingAmendments.filingNumber}) in (select value ->> 0, value ->> 1 from json_each(${JSON.stringify(newRows.map((r) => [r.filing.state, r.filing.number]))}))`,
          )
      : undefined;
  const written = waiting ? [...data, waiting] : data;
  // The aggregates follow (the sound keys point at debtor_names ids, which the refresh assigns).
  const derived =
    options.refresh === false
      ? []
      : [...refreshStatements(db), ...soundKeyStatements(db, soundKeyRows(added.flatMap((r) => r.debtors)))];
  const together = written.length + derived.length <= STATEMENTS_PER_BATCH;
  const results = await db.batch((together ? [...written, ...derived] : written) as [Statement, ...Statement[]]);
  if (!together) await runBatches(db, derived);
  if (waiting) {
    const found = results[written.length - 1] as { state: string; number: string }[];
    if (found.length > 0) options.onWaiting?.(found);
  }
  return counts;
}

/** The filing columns a replacement compares and updates: all but its id, its list of lenders and its listed form. */
const FILING_COLUMNS = Object.keys(getTableColumns(filings)).filter(
  (key) => key !== "id" && key !== "lenders" && key !== "listed",
) as (keyof Filing)[];

/** The first position from which `before` and `after` (rows in position order) differ: their common prefix's length. */
function firstDifference(before: object[], after: object[]): number {
  let at = 0;
  while (at < before.length && at < after.length && rowText(before[at] as object) === rowText(after[at] as object))
    at++;
  return at === before.length && at === after.length ? Number.POSITIVE_INFINITY : at;
}

/**
 * Writing changed filings (`before` as read, `after` as loaded, pairwise)
 * where they stand, a row only where it differs: a filing's row updated in
 * the columns that changed, and of each child table (parties, amendments)
 * the rows from the first position that differs. A new amendment is one
 * row added; a collateral change, one row updated. (Deleting and inserting
 * every row of a changed filing rewrote each of its index entries: five
 * per debtor, four for the filing.)
 *
 * First, a statement that fails the batch (lostRace) if another load
 * changed one of them since it was read: it copies any row whose revision
 * is no longer the one read onto its own id.
 */
function replacedStatements(db: Db, before: FilingRows[], after: FilingRows[]): Statement[] {
  if (before.length === 0) return [];
  const read = JSON.stringify(before.map((r) => [r.filing.id, r.filing.revision]));
  const out: Statement[] = [
    db.insert(filings).select(
      db
        .select()
        .from(filings)
        .where(
          and(
            sql`${filings.id} in (select value ->> 0 from json_each(${read}))`,
            sql`${filings.revision} <> (select j.value ->> 1 from json_each(${read}) j where j.value ->> 0 = ${filings.id})`,
          ),
        ),
    ),
  ];
  const gone: { table: typeof debtorParties | typeof securedParties | typeof amendments; keys: number[][] }[] = [
    { table: debtorParties, keys: [] },
    { table: securedParties, keys: [] },
    { table: amendments, keys: [] },
  ];
  const fresh: FilingRows[] = [];
  /** Per party table: [filing id, its new lapse day] of parties that change only in it. */
  const parties: [number, string | null][][] = [[], []];
  before.forEach((was, i) => {
    const now = after[i] as FilingRows;
    const changed: Record<string, unknown> = {};
    // Every column but the id and the list of lenders (below); one the new version leaves out is null, as an insert left it.
    for (const key of FILING_COLUMNS) {
      const value = now.filing[key] ?? null;
      if (JSON.stringify(was.filing[key] ?? null) !== JSON.stringify(value)) changed[key] = value;
    }
    const parts = [
      [was.debtors, now.debtors],
      [was.securedParties, now.securedParties],
      [was.amendments, now.amendments],
    ] as const;
    const from = parts.map(([b, a]) => firstDifference(b, a));
    // Parties whose only change is the filing's lapse date copied onto them (a continuation, a
    // termination) are updated in that column, not written again with all their index entries.
    parties.forEach((moved, t) => {
      const [b, a] = parts[t] as readonly [{ lapsesOn: string | null }[], { lapsesOn: string | null }[]];
      const lapsesOn = a[0]?.lapsesOn ?? null;
      const onlyLapse =
        from[t] !== Number.POSITIVE_INFINITY &&
        b.length === a.length &&
        a.every(
          (row, k) => row.lapsesOn === lapsesOn && rowText({ ...row, lapsesOn }) === rowText({ ...b[k], lapsesOn }),
        );
      if (!onlyLapse) return;
      moved.push([now.filing.id, lapsesOn]);
      from[t] = Number.POSITIVE_INFINITY;
    });
    // The filing's list of lenders follows its secured parties, and its listed form what it shows of them all.
    const lenders = from[1] === Number.POSITIVE_INFINITY ? {} : { lenders: lookedUp.lenders(now.securedParties) };
    const listed = now.listed ?? null;
    const shown = (was.listed ?? null) === listed ? {} : { listed };
    out.push(
      db
        .update(filings)
        .set({ ...changed, ...lenders, ...shown } as SQLiteUpdateSetSource<typeof filings>)
        .where(and(eq(filings.id, now.filing.id), eq(filings.revision, was.filing.revision))),
    );
    parts.forEach(([b], t) => {
      const at = from[t] as number;
      for (const row of b.slice(at)) gone[t]?.keys.push([now.filing.id, (row as { position: number }).position]);
    });
    fresh.push({
      filing: now.filing,
      debtors: now.debtors.slice(from[0]),
      securedParties: now.securedParties.slice(from[1]),
      amendments: now.amendments.slice(from[2]),
    });
  });
  for (const { table, keys } of gone) {
    if (keys.length === 0) continue;
    out.push(
      db
        .delete(table)
        .where(
          sql`(${table.filingId}, ${table.position}) in (select value ->> 0, value ->> 1 from json_each(${JSON.stringify(keys)}))`,
        ),
    );
  }
  [debtorParties, securedParties].forEach((table, t) => {
    const lapses = parties[t] ?? [];
    if (lapses.length === 0) return;
    // As the column stores a day.
    const moved = JSON.stringify(
      lapses.map(([id, day]) => [id, day === null ? null : table.lapsesOn.mapToDriverValue(day)]),
    );
    out.push(
      db
        .update(table)
        .set({
          lapsesOn: sql`(select j.value ->> 1 from json_each(${moved}) j where j.value ->> 0 = ${table.filingId})`,
        })
        .where(sql`${table.filingId} in (select value ->> 0 from json_each(${moved}))`),
    );
  });
  // The rows from each first difference on (the filing rows themselves were updated above).
  const [, ...children] = tableRows(fresh);
  return [...out, ...children.flatMap((set) => insertChunks(db, set.table, set.rows, D1_MAX_PARAMS))];
}

/** Whether a load with `options` records the changes of a filing of `state`. */
const recordsChanges = (options: { recordChanges?: boolean; backfilling?: ReadonlySet<string> }, state: string) =>
  options.recordChanges !== false && !options.backfilling?.has(state);
