/**
 * Bulk mode of `npm run import`: loading feeds into an EMPTY local database
 * (a state's backfill) the way the seed loads generated data.
 *
 * The ordinary import (src/feed/import.ts) compares every filing with the
 * stored one and rebuilds the aggregates of the debtors each group touches,
 * which is what an update needs. With nothing stored there is nothing to
 * compare, so bulk mode:
 * - drops the secondary indexes and writes the filings' rows with large
 *   INSERTs, one transaction per group, straight into the local D1 file;
 * - at the end, builds the indexes once, rebuilds every debtor aggregate and
 *   running total once (refreshAll), and runs ANALYZE;
 * - keeps a map of the (state, number) pairs written, so a filing that comes
 *   again (in the same or a later file) is held back and then loaded through
 *   the ordinary upsert once the indexes exist: the last one still wins, as
 *   in an ordinary import.
 * If the run fails or is interrupted, finish() still rebuilds the indexes and
 * aggregates of what was written, so the database is never left without them.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import {
  createIndexes,
  dropSecondaryIndexes,
  type IndexDefinition,
  refreshAll,
  tuneForLoading,
  writeFilingRows,
} from "../seed/localD1.ts";
import { FILINGS_PER_GROUP, facetCutoffDay, recordLoad, upsertFilings } from "../src/db/load.ts";
import { type FilingRecord, toRows } from "../src/db/records.ts";
import type * as schema from "../src/db/schema.ts";
import type { ImportOptions, ImportSummary } from "../src/feed/import.ts";
import { readFeed } from "../src/feed/read.ts";

/** Filings written per transaction: large statements, bounded memory. */
const BULK_GROUP = FILINGS_PER_GROUP * 4;

/** Whether the local database holds no filing yet (bulk mode applies). */
export function isEmpty(sqlite: DatabaseSync): boolean {
  return sqlite.prepare("select 1 from filings limit 1").get() === undefined;
}

export class BulkImport {
  private readonly prepared = new Map<string, StatementSync>();
  private readonly written = new Map<string, number>();
  /** Filings met again after their first write: loaded by upsert in finish(). */
  private readonly repeated: FilingRecord[] = [];
  private readonly indexes: IndexDefinition[];
  private readonly cutoff: string;
  private readonly sqlite: DatabaseSync;
  private readonly now: Date;
  private nextId = 1;
  private finished = false;

  constructor(sqlite: DatabaseSync, now: Date = new Date()) {
    this.sqlite = sqlite;
    this.now = now;
    this.cutoff = facetCutoffDay(now);
    // Nothing to lose on a crash that a second import would not restore.
    sqlite.exec("pragma synchronous = off");
    tuneForLoading(sqlite);
    this.indexes = dropSecondaryIndexes(sqlite);
  }

  /** Reads one feed file, as importFeed does, writing its new filings in bulk. */
  async importFeed(
    db: DrizzleD1Database<typeof schema>,
    file: string,
    body: ReadableStream<Uint8Array>,
    options: ImportOptions = {},
  ): Promise<ImportSummary> {
    const summary: ImportSummary = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0 };
    let group: FilingRecord[] = [];
    const write = () => {
      if (group.length === 0) return;
      const rows = group.map((record) => toRows(record, this.nextId++));
      writeFilingRows(this.sqlite, this.prepared, rows, this.cutoff);
      summary.inserted += group.length;
      group = [];
      options.onProgress?.({ ...summary });
    };
    for await (const item of readFeed(file, body, { now: this.now, format: options.format })) {
      summary.read += 1;
      if ("reject" in item) {
        summary.rejected += 1;
        await options.onReject?.(item.reject);
        continue;
      }
      const key = `${item.record.state}\u0000${item.record.number}`;
      if (this.written.has(key)) {
        this.repeated.push(item.record);
        continue;
      }
      this.written.set(key, this.nextId + group.length);
      group.push(item.record);
      if (group.length >= (options.groupSize ?? BULK_GROUP)) write();
    }
    write();
    await recordLoad(db, options.source ?? `import ${file}`, summary.inserted, this.now);
    return summary;
  }

  /**
   * Builds the indexes and aggregates, then loads the repeated filings
   * through the ordinary upsert (the last of each wins). Safe to call after
   * a failure; runs once.
   */
  async finish(db: DrizzleD1Database<typeof schema>, report: (phase: string) => void = () => {}): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    report(`building ${this.indexes.length} indexes`);
    createIndexes(this.sqlite, this.indexes);
    report("building debtor aggregates and running totals");
    refreshAll(this.sqlite);
    this.sqlite.exec("analyze");
    this.sqlite.exec("pragma synchronous = normal");
    if (this.repeated.length > 0) {
      report(`loading ${this.repeated.length} repeated filings (the last of each wins)`);
      await upsertFilings(db, this.repeated, { now: this.now, record: false });
    }
  }
}
