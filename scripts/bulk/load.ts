/**
 * Bulk loading into local D1 files: the seed, and `npm run import` into an
 * empty database (a backfill, scripts/bulk/import.ts). And finishing a bulk
 * load, or an ordinary one, that something stopped.
 *
 * A bulk load drops the secondary indexes (beginBulkLoad), writes each
 * group's rows in one transaction with statements as large as SQLite takes
 * (writeFilingRows: the rows and tables the D1 loader writes, tableRows),
 * then builds the indexes once, rebuilds every aggregate once and runs
 * ANALYZE (finishBulkWrite): a million filings in minutes, where
 * maintaining indexes row by row would take most of an hour.
 *
 * A load stopped at any point (Ctrl-C, SIGKILL, a crash, a power cut) leaves
 * a database that says so, with no signal handler or `finally` involved:
 * the bulk_load row (src/db/schema.ts) is written in the very transaction
 * that drops the indexes, and the aggregates are only trusted once it is
 * gone or marked `incomplete`. Every command that opens local state runs
 * migrateAll (scripts/shardConfig.ts), which finishes the job first:
 * rebuildDroppedIndexes before the migrations (they may touch an index),
 * finishInterruptedLoad after them.
 */

import { hostname } from "node:os";
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { getTableColumns, getTableName } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type AnyD1Database, drizzle } from "drizzle-orm/d1";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { windowForms } from "../../src/changes/daily.ts";
import { keepsAsBound } from "../../src/db/encodings.ts";
import { knownRefs, LENDER_COLUMNS, type LenderRefs, lenderText } from "../../src/db/lenders.ts";
import {
  FILINGS_PER_GROUP,
  facetCutoffDay,
  groups,
  refreshQueued,
  refreshStatements,
  tableRows,
} from "../../src/db/load.ts";
import { type FilingRecord, type FilingRows, facetDayRows, soundKeyRows, toRows } from "../../src/db/records.ts";
import * as schema from "../../src/db/schema.ts";
import { soundKeyStatements } from "../../src/db/soundKeys.ts";
import { facetStatements, keptByMonth } from "../../src/db/tallies.ts";
import { isoSeconds } from "../../src/domain/time.ts";
import { inTransaction, localD1Database, tuneForLoading } from "../localD1.ts";

/** SQLite accepts far more than D1's 100 parameters; this keeps statements large but cacheable. */
const MAX_PARAMS = 990;

/**
 * `synchronous` while bulk rows are written. OFF lets SQLite hand commits to
 * the OS without waiting for the disk: a killed process loses nothing
 * committed (the OS still writes it), but a power cut or OS crash may leave
 * the file corrupt, and the backfill must then start again from an empty
 * database. NORMAL waits for the disk at each commit, so such a crash
 * loses at most the last group. Measured on a million filings
 * (docs/feeds/interruptions.md, "Power cuts").
 */
const BULK_SYNCHRONOUS = "normal";

/** Only builds SQL: the D1 handle is never called. */
const builder = drizzle({} as AnyD1Database, { schema, casing: "snake_case" });

/** Runs drizzle-built `statements` on `db`, reusing prepared statements; returns rows changed. */
function runAll(db: DatabaseSync, prepared: Map<string, StatementSync>, statements: BatchItem<"sqlite">[]): number {
  let changes = 0;
  for (const statement of statements) {
    const query = statement as unknown as {
      toSQL?(): { sql: string; params: unknown[] };
      getQuery?(): { sql: string; params: unknown[] };
    };
    const { sql, params } = query.toSQL?.() ?? query.getQuery!();
    let stmt = prepared.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      prepared.set(sql, stmt);
    }
    changes += Number(stmt.run(...(params as SQLInputValue[])).changes);
  }
  return changes;
}

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Inserts `rows` into `table` through prepared multi-row INSERTs reused for
 * every full chunk: the rows and tables of the D1 loader (tableRows), without
 * building the SQL text again for each chunk, which is most of a bulk load's
 * time otherwise.
 */
function insertRows(
  db: DatabaseSync,
  prepared: Map<string, StatementSync>,
  set: ReturnType<typeof tableRows>[number],
): number {
  if (set.rows.length === 0) return 0;
  const keys = [...new Set(set.rows.flatMap((r) => Object.keys(r)))];
  const perChunk = Math.floor(MAX_PARAMS / keys.length);
  const name = getTableName(set.table);
  // Each value in its stored form (integer timestamps and codes: src/db/encodings.ts); a code for a
  // column of no type affinity bound as an integer (a BigInt), which node:sqlite binds so, where a number is a REAL.
  const columns = getTableColumns(set.table) as Record<string, SQLiteColumn>;
  const encode = keys.map((k) => {
    const column = columns[k]!;
    const untyped = keepsAsBound(column);
    return (v: unknown) => {
      if (v == null) return null;
      const stored = column.mapToDriverValue(v);
      return untyped && Number.isSafeInteger(stored) ? BigInt(stored as number) : stored;
    };
  });
  let changes = 0;
  for (let i = 0; i < set.rows.length; i += perChunk) {
    const part = set.rows.slice(i, i + perChunk) as Record<string, unknown>[];
    const sql = `insert into "${name}" (${keys.map((k) => `"${snakeCase(k)}"`).join(", ")}) values ${Array(part.length)
      .fill(`(${keys.map(() => "?").join(", ")})`)
      .join(", ")}`;
    let stmt = prepared.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      prepared.set(sql, stmt);
    }
    const values: SQLInputValue[] = [];
    for (const row of part) {
      for (let j = 0; j < keys.length; j++) values.push(encode[j]!(row[keys[j]!]) as SQLInputValue);
    }
    changes += Number(stmt.run(...values).changes);
  }
  return changes;
}

/** Each database's lender names and lenders by value, read once and kept as a bulk load adds them. */
const lenderCaches = new WeakMap<DatabaseSync, { names: Map<string, number>; lenders: Map<string, number> }>();

/**
 * How `rows` refer to their lenders, each written first if new: by ids a
 * bulk load keeps in memory, since its lookups have no index to use (they
 * are dropped while it writes). The tables are small: a lender is stored
 * once however many filings name it.
 */
function lenderRefs(db: DatabaseSync, rows: FilingRows[]): LenderRefs {
  let cache = lenderCaches.get(db);
  if (!cache) {
    const names = db.prepare("select id, words from lender_names").all() as { id: number; words: string }[];
    const stored = db.prepare(`select id, ${LENDER_COLUMNS} from lenders`).all() as Record<string, unknown>[];
    cache = {
      names: new Map(names.map((n) => [n.words, Number(n.id)])),
      lenders: new Map(stored.map((l) => [lenderText(l), Number(l.id)])),
    };
    lenderCaches.set(db, cache);
  }
  const addName = db.prepare("insert into lender_names (words) values (?)");
  const addLender = db.prepare(
    `insert into lenders (${LENDER_COLUMNS}) values (${LENDER_COLUMNS.split(",")
      .map(() => "?")
      .join(", ")})`,
  );
  for (const s of rows.flatMap((r) => r.securedParties)) {
    if (!cache.names.has(s.nameWords)) cache.names.set(s.nameWords, Number(addName.run(s.nameWords).lastInsertRowid));
    const text = lenderText(s);
    if (!cache.lenders.has(text)) {
      cache.lenders.set(text, Number(addLender.run(...(JSON.parse(text) as SQLInputValue[])).lastInsertRowid));
    }
  }
  return knownRefs(cache.names, cache.lenders);
}

/**
 * Writes the rows of new filings in one transaction, with statements as
 * large as SQLite takes. Derived aggregates are left for finishBulkWrite.
 * Returns rows written.
 */
export function writeFilingRows(
  db: DatabaseSync,
  prepared: Map<string, StatementSync>,
  rows: FilingRows[],
  cutoffDay: string,
): number {
  return inTransaction(db, () => {
    let written = 0;
    const refs = lenderRefs(db, rows);
    for (const set of tableRows(rows, refs)) written += insertRows(db, prepared, set);
    // The lender months ("k") are made once from the stored filings after the write (refreshAll).
    const days = facetDayRows(rows, cutoffDay).filter((d) => !keptByMonth(d));
    written += runAll(
      db,
      prepared,
      facetStatements(builder, days, MAX_PARAMS, (words) => refs.nameId(words)),
    );
    return written;
  });
}

/**
 * Writes new `records` with ids from `firstId`, one transaction per group.
 * Every derived aggregate is then rebuilt once by refreshAll (the D1 loader
 * rebuilds only the debtors each group touches). Returns rows written.
 */
export function writeFilings(
  db: DatabaseSync,
  records: Iterable<FilingRecord>,
  firstId: number,
  onProgress: (filings: number) => void,
  now: number = Date.now(),
): number {
  const prepared = new Map<string, StatementSync>();
  const cutoff = facetCutoffDay(now);
  let written = 0;
  let rows = 0;
  for (const group of groups(records, FILINGS_PER_GROUP * 4)) {
    rows += writeFilingRows(
      db,
      prepared,
      group.map((r, i) => toRows(r, firstId + written + i)),
      cutoff,
    );
    written += group.length;
    onProgress(written);
  }
  return rows;
}

/**
 * writeFilings over several shards: each group of `records` is split by
 * the shard of each filing (its state's, or its part's of a split state:
 * src/db/shards.ts, shardOf), and each part written to that shard in
 * one transaction, with ids counting from 1 in each shard. Returns rows
 * written.
 */
export function writeShardedFilings(
  shards: ReadonlyMap<string, DatabaseSync>,
  shardOfFiling: (record: FilingRecord) => string,
  records: Iterable<FilingRecord>,
  onProgress: (filings: number) => void,
  now: number = Date.now(),
): number {
  const prepared = new Map([...shards.keys()].map((shard) => [shard, new Map<string, StatementSync>()]));
  const nextId = new Map([...shards.keys()].map((shard) => [shard, 1]));
  const cutoff = facetCutoffDay(now);
  let written = 0;
  let rows = 0;
  for (const group of groups(records, FILINGS_PER_GROUP * 4)) {
    const parts = new Map<string, FilingRecord[]>();
    for (const record of group) {
      const shard = shardOfFiling(record);
      const part = parts.get(shard);
      if (part) part.push(record);
      else parts.set(shard, [record]);
    }
    for (const [shard, part] of parts) {
      const db = shards.get(shard);
      if (!db) throw new Error(`no database for shard ${shard}`);
      const first = nextId.get(shard)!;
      rows += writeFilingRows(
        db,
        prepared.get(shard)!,
        part.map((r, i) => toRows(r, first + i)),
        cutoff,
      );
      nextId.set(shard, first + part.length);
    }
    written += group.length;
    onProgress(written);
  }
  return rows;
}

interface IndexDefinition {
  name: string;
  sql: string;
}

interface BulkLoadRow {
  stage: "writing" | "incomplete";
  indexes: string;
  source: string;
  owner: string | null;
}

/** This process, as bulk_load.owner names it. */
const thisProcess = `${hostname()}:${process.pid}`;

/**
 * Whether the bulk load of `row` is being written by another live process
 * on this machine (rather than stopped): it is not an interrupted load, and
 * its database is left alone until its writing ends (waitForBulkWriter).
 */
function writtenElsewhere(row: BulkLoadRow | undefined): boolean {
  if (row?.stage !== "writing" || !row.owner || row.owner === thisProcess) return false;
  const [host, pid] = row.owner.split(":");
  if (host !== hostname()) return false;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (err) {
    // EPERM: it lives, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Waits while another live process writes a bulk load into `db`, saying so once. */
export async function waitForBulkWriter(db: DatabaseSync): Promise<void> {
  let said = false;
  while (writtenElsewhere(unfinished(db))) {
    if (!said)
      console.error(
        `Another import is writing a bulk load into this database (${unfinished(db)?.owner}): waiting for it...`,
      );
    said = true;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The unfinished bulk load recorded in `db`, if any (none in a database migrated before the table existed). */
function unfinished(db: DatabaseSync): BulkLoadRow | undefined {
  const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'bulk_load'").get();
  if (!table) return undefined;
  // Every column: a database migrated before `owner` existed has none (migrations run after this).
  return db.prepare("select * from bulk_load").get() as BulkLoadRow | undefined;
}

/**
 * Starts a bulk load of `db` (empty, or emptied by the caller): drops the
 * secondary indexes and records, in the same transaction, that a bulk load
 * is being written and which indexes to build again. Primary keys, which
 * the facet upserts rely on, stay. Sets the writing pace (BULK_SYNCHRONOUS).
 */
export function beginBulkLoad(db: DatabaseSync, source: string, { onlyIfEmpty = false } = {}): boolean {
  tuneForLoading(db);
  const begun = inTransaction(db, () => {
    // Under the write lock: another import that began first, or wrote a filing, wins.
    const earlier = unfinished(db);
    if (onlyIfEmpty && (writtenElsewhere(earlier) || db.prepare("select 1 from filings limit 1").get())) return false;
    const indexes = db
      .prepare("select name, sql from sqlite_master where type = 'index' and sql is not null")
      .all() as unknown as IndexDefinition[];
    // Indexes an earlier, interrupted bulk load dropped are still to be built.
    const pending = earlier ? (JSON.parse(earlier.indexes) as IndexDefinition[]) : [];
    const all = [...pending.filter((p) => !indexes.some((i) => i.name === p.name)), ...indexes];
    db.prepare(
      "insert or replace into bulk_load (id, stage, indexes, source, started_at, owner) values (1, 'writing', ?, ?, ?, ?)",
    ).run(JSON.stringify(all), source, isoSeconds(Date.now()), thisProcess);
    for (const { name } of indexes) db.exec(`drop index "${name}"`);
    return true;
  });
  if (begun) db.exec(`pragma synchronous = ${BULK_SYNCHRONOUS}`);
  return begun;
}

/** The indexes a bulk load dropped that are still missing. */
function missingIndexes(db: DatabaseSync, row: BulkLoadRow): IndexDefinition[] {
  const indexes = JSON.parse(row.indexes) as IndexDefinition[];
  const present = new Set(
    (db.prepare("select name from sqlite_master where type = 'index'").all() as { name: string }[]).map((r) => r.name),
  );
  return indexes.filter((i) => !present.has(i.name));
}

/** Builds the indexes a bulk load dropped (those still missing), telling `onBuilt` of each; returns how many it built. */
function createIndexes(db: DatabaseSync, row: BulkLoadRow, onBuilt: () => void = () => {}): number {
  const missing = missingIndexes(db, row);
  for (const { sql } of missing) {
    db.exec(sql);
    onBuilt();
  }
  return missing.length;
}

/** How many indexes the bulk load being written into `db` has still to build (finishBulkWrite's first step). */
export function indexesToBuild(db: DatabaseSync): number {
  const row = unfinished(db);
  return row?.stage === "writing" ? missingIndexes(db, row).length : 0;
}

/** finishBulkWrite's first step: the indexes, each told to `onBuilt` as it is built (a bulk import's progress). */
export function buildDroppedIndexes(db: DatabaseSync, onBuilt?: () => void): void {
  const row = unfinished(db);
  if (row?.stage === "writing") createIndexes(db, row, onBuilt);
}

/**
 * finishBulkWrite's second step, once the indexes are built: every debtor
 * aggregate, running total and similar-name key (`onStep` told of each
 * statement), the listed forms of the live filings lapsing soon, the
 * statistics, and the load marked `incomplete`.
 */
export function rebuildAfterBulkWrite(db: DatabaseSync, onStep?: (done: number, total: number) => void): void {
  // The listed forms count as one step more, the last.
  let steps = 1;
  refreshAll(db, (done, total) => {
    steps = total + 1;
    onStep?.(done, steps);
  });
  // The live filings lapsing soon get their listed forms, as the daily job gives them (src/changes/daily.ts).
  runAll(db, new Map(), [windowForms(builder, new Date())]);
  onStep?.(steps, steps);
  // Statistics for the query planner, as `PRAGMA optimize` keeps them on D1.
  db.exec("analyze");
  db.exec("update bulk_load set stage = 'incomplete'");
}

/**
 * Ends the writing of a bulk load: builds the indexes, rebuilds every debtor
 * aggregate and running total and the similar-name keys, runs ANALYZE, and
 * marks the load `incomplete` (consistent, but still a backfill: see
 * endBulkLoad). Each step can run again after an interruption.
 */
export function finishBulkWrite(db: DatabaseSync): void {
  buildDroppedIndexes(db);
  rebuildAfterBulkWrite(db);
}

/** Ends a bulk load whose files were read to their end: the database is an ordinary one from now on. */
export function endBulkLoad(db: DatabaseSync): void {
  db.exec("delete from bulk_load");
  db.exec("pragma synchronous = normal");
}

/** Whether `db` is a backfill still under way (a bulk load not ended): loads into it record no per-filing changes. */
export function isBackfilling(db: DatabaseSync): boolean {
  return unfinished(db) !== undefined;
}

/**
 * Before migrations: builds the indexes an interrupted bulk load dropped,
 * as they were, so a migration finds the schema it expects.
 */
export async function rebuildDroppedIndexes(db: DatabaseSync): Promise<void> {
  await waitForBulkWriter(db);
  const row = unfinished(db);
  if (row?.stage === "writing") inTransaction(db, () => createIndexes(db, row));
}

/** What finishInterruptedLoad finished. */
export type Finished = { bulk: string } | { debtors: number };

/**
 * After migrations: finishes what a stopped load left undone. A bulk load
 * interrupted while writing gets its indexes, aggregates, running totals,
 * similar-name keys and statistics (it stays marked `incomplete`: running
 * the same import again loads the rest, as a backfill); an ordinary load
 * stopped before its deferred refresh gets the aggregates of the debtors it
 * queued. Undefined when there was nothing to do.
 */
export async function finishInterruptedLoad(db: DatabaseSync): Promise<Finished | undefined> {
  await waitForBulkWriter(db);
  const row = unfinished(db);
  if (row?.stage === "writing") {
    finishBulkWrite(db);
    return { bulk: row.source };
  }
  const queued = Number((db.prepare("select count(*) as n from debtors_to_refresh").get() as { n: number }).n);
  const stale = db.prepare("select 1 from stale_tallies limit 1").get() !== undefined;
  if (queued === 0 && !stale) return undefined;
  await refreshQueued(localD1Database(db));
  return { debtors: queued };
}

/** One line for what finishInterruptedLoad finished in the shards named (by binding), taking `ms`. */
export function describeFinished(finished: [string, Finished][], ms: number): string {
  const took = `${(ms / 1000).toFixed(1)}s`;
  const bulk = finished.filter((f): f is [string, { bulk: string }] => "bulk" in f[1]);
  if (bulk.length > 0) {
    const sources = [...new Set(bulk.map(([, f]) => f.bulk))].join("; ");
    return `Finished an interrupted bulk load (${sources}) in ${bulk.map(([shard]) => shard).join(", ")}: indexes, debtor aggregates, running totals and statistics rebuilt in ${took}; run the same import again to load the rest.`;
  }
  const debtors = finished.reduce((n, [, f]) => n + ("debtors" in f ? f.debtors : 0), 0);
  // Another import still running leaves its queue too: the refresh is the same, the load may not be stopped.
  return `Refreshed what a load left queued in ${finished.map(([shard]) => shard).join(", ")} (stopped before its refresh, or still running): the aggregates of ${debtors.toLocaleString("en-US")} debtors and the running totals, in ${took}.`;
}

/**
 * Rebuilds every debtor aggregate and running total, then writes the sound
 * keys of similar-name search (after writeFilings). `onStep` is told of
 * each statement done, the sound keys counting as the last.
 */
export function refreshAll(db: DatabaseSync, onStep: (done: number, total: number) => void = () => {}): void {
  const statements = refreshStatements(builder, { all: true });
  const prepared = new Map<string, StatementSync>();
  inTransaction(db, () =>
    statements.forEach((statement, i) => {
      runAll(db, prepared, [statement]);
      onStep(i + 1, statements.length + 1);
    }),
  );
  writeSoundKeys(db);
  onStep(statements.length + 1, statements.length + 1);
}

/** Debtor spellings read at a time by writeSoundKeys. */
const SPELLINGS_PER_GROUP = 5_000;

/** Writes the sound keys of every spelling of every debtor, once debtor_names has its ids. */
function writeSoundKeys(db: DatabaseSync): void {
  const spellings = db.prepare(
    "select distinct name, name_key as nameKey, filing_state as filingState from debtor_parties where name_key <> ''",
  );
  const prepared = new Map<string, StatementSync>();
  inTransaction(db, () => {
    for (const group of groups(
      spellings.iterate() as Iterable<{ name: string; nameKey: string; filingState: string }>,
      SPELLINGS_PER_GROUP,
    )) {
      runAll(db, prepared, soundKeyStatements(builder, soundKeyRows(group), 1_000_000));
    }
  });
}
