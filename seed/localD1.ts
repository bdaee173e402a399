/**
 * Direct writes to the local D1 database file, for bulk loads.
 *
 * Local D1 (wrangler dev, `--local` commands) keeps each database as a
 * SQLite file under .wrangler/state. Writing it with node:sqlite inside one
 * transaction per group loads a million filings in minutes, where the
 * binding proxy's round trips would take most of an hour. The statements are
 * the rows and tables the D1 loader writes (tableRows), only with more rows
 * per statement.
 */
import { existsSync } from "node:fs";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { getTableColumns, getTableName } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type AnyD1Database, drizzle } from "drizzle-orm/d1";
import { drizzle as proxyDrizzle } from "drizzle-orm/sqlite-proxy";
import {
  FILINGS_PER_GROUP,
  facetCutoffDay,
  facetStatements,
  groups,
  refreshStatements,
  tableRows,
} from "../src/db/load.ts";
import { type FilingRecord, type FilingRows, facetDayRows, soundKeyRows, toRows } from "../src/db/records.ts";
import * as schema from "../src/db/schema.ts";
import { soundKeyStatements } from "../src/db/soundKeys.ts";

/** Where local D1 files live under a wrangler state directory (`--persist-to`, default .wrangler/state). */
const _D1_DIR = "v3/d1/miniflare-D1DatabaseObject";
/** SQLite accepts far more than D1's 100 parameters; this keeps statements large but cacheable. */
const MAX_PARAMS = 990;

/**
 * A page cache and memory-mapped reads sized for a multi-GB database: with
 * SQLite's default 2 MB cache, a load into a large database spends most of
 * its time re-reading index pages from the file.
 */
export function tuneForLoading(db: DatabaseSync): void {
  db.exec("pragma cache_size = -524288"); // 512 MiB
  db.exec("pragma mmap_size = 4294967296"); // up to 4 GiB of the file mapped
}

/** Opens a local D1 file (scripts/shardConfig.ts, localD1File) whose migrations are applied. */
export function openLocalD1File(file: string): DatabaseSync {
  if (!existsSync(file)) throw new Error(`no local D1 database at ${file}; run npm run db:migrate`);
  const db = new DatabaseSync(file);
  const migrated = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'filings'").get();
  if (!migrated) {
    db.close();
    throw new Error(`the local D1 database at ${file} is not migrated; run npm run db:migrate`);
  }
  db.exec("pragma busy_timeout = 10000");
  return db;
}

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
  // Each value in its stored form (integer timestamps and codes: src/db/encodings.ts).
  const columns = getTableColumns(set.table) as Record<string, { mapToDriverValue(v: unknown): unknown }>;
  const encode = keys.map((k) => (v: unknown) => (v == null ? null : columns[k]!.mapToDriverValue(v)));
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

/**
 * Writes the rows of new filings in one transaction, with statements as
 * large as SQLite takes. Derived aggregates are left for refreshAll.
 * Returns rows written.
 */
export function writeFilingRows(
  db: DatabaseSync,
  prepared: Map<string, StatementSync>,
  rows: FilingRows[],
  cutoffDay: string,
): number {
  db.exec("begin");
  try {
    let written = 0;
    for (const set of tableRows(rows)) written += insertRows(db, prepared, set);
    written += runAll(db, prepared, facetStatements(builder, facetDayRows(rows, cutoffDay), MAX_PARAMS));
    db.exec("commit");
    return written;
  } catch (err) {
    db.exec("rollback");
    throw err;
  }
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
 * the shard of its filings' state, and each part written to that shard in
 * one transaction, with ids counting from 1 in each shard. Returns rows
 * written.
 */
export function writeShardedFilings(
  shards: ReadonlyMap<string, DatabaseSync>,
  shardOfState: (state: string) => string,
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
      const shard = shardOfState(record.state);
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

export interface IndexDefinition {
  name: string;
  sql: string;
}

/**
 * Drops the secondary indexes, to be built once after a bulk load instead of
 * maintained row by row (primary keys, which the facet upserts rely on,
 * stay). Returns their definitions for createIndexes.
 */
export function dropSecondaryIndexes(db: DatabaseSync): IndexDefinition[] {
  const indexes = db
    .prepare("select name, sql from sqlite_master where type = 'index' and sql is not null")
    .all() as unknown as IndexDefinition[];
  for (const { name } of indexes) db.exec(`drop index "${name}"`);
  return indexes;
}

/** Builds indexes dropped by dropSecondaryIndexes (those still missing). */
export function createIndexes(db: DatabaseSync, indexes: IndexDefinition[]): void {
  for (const { sql } of indexes) db.exec(sql.replace(/^create (unique )?index /i, "create $1index if not exists "));
}

/**
 * Rebuilds every debtor aggregate and running total, then writes the sound
 * keys of similar-name search (after writeFilings).
 */
export function refreshAll(db: DatabaseSync): void {
  db.exec("begin");
  runAll(db, new Map(), refreshStatements(builder, { all: true }));
  db.exec("commit");
  writeSoundKeys(db);
}

/** Debtor spellings read at a time by writeSoundKeys. */
const SPELLINGS_PER_GROUP = 5_000;

/** Writes the sound keys of every spelling of every debtor, once debtor_names has its ids. */
function writeSoundKeys(db: DatabaseSync): void {
  const spellings = db.prepare(
    "select distinct name, name_key as nameKey, filing_state as filingState from debtor_parties where name_key <> ''",
  );
  const prepared = new Map<string, StatementSync>();
  db.exec("begin");
  for (const group of groups(
    spellings.iterate() as Iterable<{ name: string; nameKey: string; filingState: string }>,
    SPELLINGS_PER_GROUP,
  )) {
    runAll(db, prepared, soundKeyStatements(builder, soundKeyRows(group), 1_000_000));
  }
  db.exec("commit");
}

/**
 * A Drizzle handle over the local D1 file that the D1 loader (upsertFilings)
 * can write through unchanged: statements run in-process with node:sqlite,
 * and each batch is one transaction, as a D1 batch is. Without a network
 * round trip per batch, a local import runs at the speed of SQLite itself.
 */
export function localD1Database(db: DatabaseSync) {
  // WAL with NORMAL sync: a commit no longer waits for the disk, and a crash
  // of this process still loses nothing committed (only a power cut could
  // lose the last batches, which importing again restores).
  db.exec("pragma synchronous = normal");
  tuneForLoading(db);
  const prepared = new Map<string, StatementSync>();
  const statement = (sql: string) => {
    let stmt = prepared.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      // Drizzle's proxy driver maps rows from arrays in column order.
      stmt.setReturnArrays(true);
      prepared.set(sql, stmt);
    }
    return stmt;
  };
  const run = (sql: string, params: unknown[], method: string) => {
    const stmt = statement(sql);
    const values = params as SQLInputValue[];
    if (method === "run") {
      stmt.run(...values);
      return { rows: [] };
    }
    if (method === "get") return { rows: (stmt.get(...values) as unknown[] | undefined) ?? [] };
    return { rows: stmt.all(...values) as unknown[] };
  };
  const transaction = <T>(work: () => T): T => {
    db.exec("begin");
    try {
      const out = work();
      db.exec("commit");
      return out;
    } catch (err) {
      db.exec("rollback");
      throw err;
    }
  };
  return proxyDrizzle(
    async (sql, params, method) => run(sql, params, method),
    async (batch) => transaction(() => batch.map((q) => run(q.sql, q.params, q.method))),
    { schema, casing: "snake_case" },
  );
}
