/**
 * Bulk insertion of filings. Used by the seed script, the importer and test
 * fixtures, so all of them write the same rows the same way.
 */

import { sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { isoSeconds } from "../domain/time.ts";
import { dayCountRows, type FilingRecord, type FilingRows, nameIndexRows, toRows } from "./records.ts";
import type * as schema from "./schema.ts";
import {
  amendments,
  dataLoads,
  debtorNameSounds,
  debtorNames,
  debtorParties,
  filingDayCounts,
  filings,
  securedParties,
} from "./schema.ts";

type Db = DrizzleD1Database<typeof schema> | DrizzleD1Database;

/** D1 allows at most 100 bound parameters in one statement. */
export const D1_MAX_PARAMS = 100;
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
 * Multi-row INSERTs for `rows` (filings, parties, amendments, and the
 * similar-name index), each within `maxParams` bound parameters.
 */
export function insertStatements(db: Db, rows: FilingRows[], maxParams = D1_MAX_PARAMS): BatchItem<"sqlite">[] {
  const tables = [
    [filings, rows.map((r) => r.filing)],
    [debtorParties, rows.flatMap((r) => r.debtors)],
    [securedParties, rows.flatMap((r) => r.securedParties)],
    [amendments, rows.flatMap((r) => r.amendments)],
  ] as const;
  const statements: BatchItem<"sqlite">[] = [];
  for (const [table, tableRows] of tables) {
    if (tableRows.length === 0) continue;
    const perRow = Object.keys(tableRows[0]!).length;
    for (const part of chunk<object>(tableRows, Math.floor(maxParams / perRow))) {
      // The rows were built for this very table by toRows(); the union of
      // tables defeats inference, not correctness.
      statements.push(db.insert(table).values(part as any));
    }
  }
  const index = nameIndexRows(rows);
  for (const part of chunk(index.names, Math.floor(maxParams / 5))) {
    statements.push(
      db
        .insert(debtorNames)
        .values(part)
        .onConflictDoUpdate({
          target: [debtorNames.nameKey, debtorNames.state],
          set: {
            filingCount: sql`${debtorNames.filingCount} + excluded.filing_count`,
            // Keep the spelling of the most recent filing.
            name: sql`case when excluded.last_filed_at >= ${debtorNames.lastFiledAt} then excluded.name else ${debtorNames.name} end`,
            lastFiledAt: sql`max(${debtorNames.lastFiledAt}, excluded.last_filed_at)`,
          },
        }),
    );
  }
  for (const part of chunk(index.sounds, Math.floor(maxParams / 3))) {
    statements.push(db.insert(debtorNameSounds).values(part).onConflictDoNothing());
  }
  for (const part of chunk(dayCountRows(rows), Math.floor(maxParams / 4))) {
    statements.push(
      db
        .insert(filingDayCounts)
        .values(part)
        .onConflictDoUpdate({
          target: [filingDayCounts.state, filingDayCounts.industry, filingDayCounts.day],
          set: { filings: sql`${filingDayCounts.filings} + excluded.filings` },
        }),
    );
  }
  return statements;
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
 * Inserts `records` with consecutive ids from `firstId`. Records may come
 * from a generator, so large loads stream. Calls `onProgress` with the
 * number of filings written so far after each group.
 */
export async function insertFilings(
  db: Db,
  records: Iterable<FilingRecord>,
  firstId: number,
  onProgress?: (written: number) => void,
): Promise<number> {
  let written = 0;
  for (const group of groups(records, FILINGS_PER_GROUP)) {
    const rows = group.map((r, i) => toRows(r, firstId + written + i));
    const statements = insertStatements(db, rows);
    for (const part of chunk(statements, STATEMENTS_PER_BATCH)) {
      await db.batch(part as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    }
    written += group.length;
    onProgress?.(written);
  }
  return written;
}

/** Records a completed data load; its time becomes `data_source_last_updated`. */
export async function recordLoad(db: Db, source: string, count: number, at = new Date()) {
  await db.insert(dataLoads).values({
    source,
    loadedAt: isoSeconds(at),
    filings: count,
  });
}
