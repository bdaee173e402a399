/**
 * Direct writes to the local D1 database file, for bulk loads.
 *
 * Local D1 (wrangler dev, `--local` commands) keeps each database as a
 * SQLite file under .wrangler/state. Writing it with node:sqlite inside one
 * transaction per group loads a million filings in minutes, where the
 * binding proxy's round trips would take most of an hour. The statements are
 * the very ones the D1 loader sends (insertStatements), only with more rows
 * per statement.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import type { BatchItem } from "drizzle-orm/batch";
import { type AnyD1Database, drizzle } from "drizzle-orm/d1";
import {
  FILINGS_PER_GROUP,
  facetCutoffDay,
  facetStatements,
  groups,
  insertStatements,
  refreshStatements,
} from "../src/db/load.ts";
import { type FilingRecord, facetDayRows, soundKeyRows, toRows } from "../src/db/records.ts";
import * as schema from "../src/db/schema.ts";
import { soundKeyStatements } from "../src/db/soundKeys.ts";

const STATE_DIR = ".wrangler/state/v3/d1/miniflare-D1DatabaseObject";
/** SQLite accepts far more than D1's 100 parameters; this keeps statements large but cacheable. */
const MAX_PARAMS = 990;

/** Opens the local D1 file of the project's (single) database; migrations must be applied. */
export function openLocalD1(): DatabaseSync {
  const files = readdirSync(STATE_DIR).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  for (const file of files) {
    const db = new DatabaseSync(join(STATE_DIR, file));
    const migrated = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'filings'").get();
    if (migrated) {
      db.exec("pragma busy_timeout = 10000");
      return db;
    }
    db.close();
  }
  throw new Error(`no migrated local D1 database under ${STATE_DIR}; run npm run db:migrate`);
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

/**
 * Writes new `records` with ids from `firstId`, one transaction per group,
 * then rebuilds every derived aggregate once (the D1 loader rebuilds only
 * the debtors each group touches). Returns rows written.
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
    const filingRows = group.map((r, i) => toRows(r, firstId + written + i));
    db.exec("begin");
    rows += runAll(db, prepared, [
      ...insertStatements(builder, filingRows, MAX_PARAMS),
      ...facetStatements(builder, facetDayRows(filingRows, cutoff), MAX_PARAMS),
    ]);
    db.exec("commit");
    written += group.length;
    onProgress(written);
  }
  return rows;
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
