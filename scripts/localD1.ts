/**
 * Local D1 files opened in-process, for the Node scripts (import, export,
 * seed, backfill, recall).
 *
 * Local D1 (wrangler dev, `--local` commands) keeps each database as a
 * SQLite file under .wrangler/state (scripts/shardConfig.ts, localD1File).
 * Opened with node:sqlite, a batch costs no round trip: thousands of
 * filings a second instead of a few hundred through wrangler's binding
 * proxy.
 */
import { existsSync } from "node:fs";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { drizzle as proxyDrizzle } from "drizzle-orm/sqlite-proxy";
import * as schema from "../src/db/schema.ts";

/** Runs `work` in one transaction (`begin immediate` takes the write lock at once). */
export function inTransaction<T>(db: DatabaseSync, work: () => T, begin = "begin immediate"): T {
  db.exec(begin);
  try {
    const out = work();
    db.exec("commit");
    return out;
  } catch (err) {
    db.exec("rollback");
    throw err;
  }
}

/**
 * A page cache and memory-mapped reads sized for a multi-GB database: with
 * SQLite's default 2 MB cache, a load into a large database spends most of
 * its time re-reading index pages from the file. The cache is a fixed cap
 * per connection, the import's largest part of memory besides the mapped
 * file and its heap (bench/SOURCES.md); SQLite's sorter takes its in-memory
 * limit from it too. Node's SQLite maps at most 2 GiB less 64 KiB of a file
 * (its SQLITE_MAX_MMAP_SIZE), whatever is asked.
 */
export function tuneForLoading(db: DatabaseSync): void {
  db.exec("pragma cache_size = -524288"); // 512 MiB
  db.exec("pragma mmap_size = 4294967296"); // as much of the file as SQLite maps
}

/**
 * How long a statement waits for another process's lock on a local D1 file
 * (two imports at once, an import beside `npm start`) before failing: a
 * bulk load's index builds hold the write lock for seconds on a busy machine.
 */
const LOCK_WAIT_MS = 120_000;

/**
 * A local D1 file opened with the lock wait set before its first statement
 * (a read during another process's commit would otherwise fail at once).
 */
export function openSqlite(file: string, options: { readOnly?: boolean } = {}): DatabaseSync {
  return new DatabaseSync(file, { ...options, timeout: LOCK_WAIT_MS });
}

/** Opens a local D1 file (scripts/shardConfig.ts, localD1File) whose migrations are applied. */
export function openLocalD1File(file: string): DatabaseSync {
  if (!existsSync(file)) throw new Error(`no local D1 database at ${file}; run npm run db:migrate`);
  const db = openSqlite(file);
  const migrated = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'filings'").get();
  if (!migrated) {
    db.close();
    throw new Error(`the local D1 database at ${file} is not migrated; run npm run db:migrate`);
  }
  return db;
}

/** A statement that only reads (Drizzle writes every select this way). */
const READING = /^\s*select\b/i;

/**
 * Prepared statements kept per connection. A load's statements are mostly
 * the same few dozen texts, but not all: a multi-row INSERT's text differs
 * with its row count, and the loader writes a new filing's id into its
 * parties' rows as text (src/db/load.ts, newFilingIds), so nearly every
 * group's inserts are texts never seen before. Kept without a bound, they
 * grew with the filings loaded, each holding SQLite's compiled program
 * (1,914 texts after 18,600 of Colorado's filings, about 150 more every
 * 1,000: bench/SOURCES.md).
 */
const STATEMENTS_KEPT = 256;

/**
 * Prepared statements by their text, the `size` used most recently kept
 * (the Map's order is the order of use). A statement let go is finalized
 * when it is collected: node:sqlite has no call to finalize one sooner.
 */
export class StatementCache {
  private readonly statements = new Map<string, StatementSync>();
  private readonly db: DatabaseSync;
  readonly size: number;

  constructor(db: DatabaseSync, size: number) {
    this.db = db;
    this.size = size;
  }

  get(sql: string): StatementSync {
    let stmt = this.statements.get(sql);
    if (stmt) this.statements.delete(sql);
    else {
      stmt = this.db.prepare(sql);
      // Drizzle's proxy driver maps rows from arrays in column order.
      stmt.setReturnArrays(true);
    }
    this.statements.set(sql, stmt);
    if (this.statements.size > this.size) {
      const oldest = this.statements.keys().next();
      if (!oldest.done) this.statements.delete(oldest.value);
    }
    return stmt;
  }

  /** How many statements are kept now. */
  get kept(): number {
    return this.statements.size;
  }
}

/**
 * A Drizzle handle over the local D1 file that the D1 loader (upsertFilings)
 * can write through unchanged: statements run in-process with node:sqlite,
 * and each batch is one transaction, as a D1 batch is. Without a network
 * round trip per batch, a local import runs at the speed of SQLite itself.
 */
export function localD1Database(db: DatabaseSync, prepared = new StatementCache(db, STATEMENTS_KEPT)) {
  // A commit waits for the disk once (not twice, as FULL does in the
  // rollback-journal mode local D1 files use): a crash of this process loses
  // nothing committed, and a power cut at worst the last batch, which
  // importing again restores.
  db.exec("pragma synchronous = normal");
  tuneForLoading(db);
  const statement = (sql: string) => prepared.get(sql);
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
  return proxyDrizzle(
    async (sql, params, method) => run(sql, params, method),
    async (batch) =>
      inTransaction(
        db,
        () => batch.map((q) => run(q.sql, q.params, q.method)),
        // A batch that writes takes the write lock first: a transaction that
        // read before writing cannot wait for another writer (SQLite answers
        // "database is locked" at once rather than deadlock), and reads
        // alone need no write lock.
        batch.every((q) => READING.test(q.sql)) ? "begin" : "begin immediate",
      ),
    { schema, casing: "snake_case" },
  );
}
