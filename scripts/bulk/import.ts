/**
 * Bulk mode of `npm run import`: loading feeds into an EMPTY local database
 * (a state's backfill) the way the seed loads generated data (load.ts).
 *
 * The ordinary import (src/feed/import.ts) compares every filing with the
 * stored one and rebuilds the aggregates of the debtors each group touches,
 * which is what an update needs. With nothing stored there is nothing to
 * compare, so bulk mode, plugged into importFeed as its group writer
 * (reading, counting, rejects and warnings stay the ordinary import's):
 * - drops the secondary indexes (beginBulkLoad, which records that it did)
 *   and writes the filings' rows with large INSERTs, one transaction per
 *   group, straight into the local D1 file;
 * - at the end, builds the indexes once, rebuilds every debtor aggregate and
 *   running total once, and runs ANALYZE (finishBulkWrite's steps, which
 *   the import takes as phases of its progress);
 * - keeps the set of (state, number) pairs written, so a filing that comes
 *   again (in the same or a later file), and every amendment record, is
 *   held back and then loaded through the ordinary path once the indexes
 *   exist: the last filing line still wins, as in an ordinary import.
 * A backfill records no per-filing changes (the change feed would otherwise
 * announce a whole state's history as new). If the run is stopped, the
 * database says so (load.ts) and the next command finishes the indexes and
 * aggregates; running the same import again then loads the rest through
 * the ordinary path, still recording no changes, and ends the backfill.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Db } from "../../src/db/database.ts";
import { FILINGS_PER_GROUP, facetCutoffDay, groups, refreshQueued } from "../../src/db/load.ts";
import { type FilingRecord, toRows } from "../../src/db/records.ts";
import {
  emptySummary,
  IMPORT_GROUP,
  type ImportSummary,
  type Loaded,
  sumOf,
  type WriteItems,
  writeGroup,
} from "../../src/feed/import.ts";
import { filingKey } from "../../src/feed/merge.ts";
import type { Warning } from "../../src/feed/read.ts";
import { number } from "../importOutput.ts";
import type { Progress } from "../progress.ts";
import {
  beginBulkLoad,
  buildDroppedIndexes,
  endBulkLoad,
  indexesToBuild,
  rebuildAfterBulkWrite,
  writeFilingRows,
} from "./load.ts";

/** Filings written per transaction: large statements, bounded memory. */
export const BULK_GROUP = FILINGS_PER_GROUP * 4;

export class BulkImport {
  private readonly prepared = new Map<string, StatementSync>();
  private readonly written = new Set<string>();
  /**
   * Records the bulk phase cannot write blind, loaded by the ordinary path
   * in loadHeld(): a filing met again, and amendment records.
   */
  private readonly held: Loaded[] = [];
  private readonly cutoff: string;
  private readonly sqlite: DatabaseSync;
  private readonly now: Date;
  private nextId = 1;

  private constructor(sqlite: DatabaseSync, now: Date) {
    this.sqlite = sqlite;
    this.now = now;
    this.cutoff = facetCutoffDay(now);
  }

  /**
   * Begins a bulk load of the empty database `sqlite`, or undefined when
   * another import began one first or has written into it since it was
   * found empty (two imports started together: one loads in bulk).
   */
  static begin(sqlite: DatabaseSync, source: string, now: Date = new Date()): BulkImport | undefined {
    return beginBulkLoad(sqlite, source, { onlyIfEmpty: true }) ? new BulkImport(sqlite, now) : undefined;
  }

  /**
   * The group writer of importFeed in bulk mode: new filings are written
   * blind; a filing met again, and every amendment record, are held for
   * loadHeld().
   */
  writer(): WriteItems {
    return async (items, summary) => {
      const fresh: FilingRecord[] = [];
      for (const item of items) {
        if ("amendment" in item) {
          this.held.push(item);
          continue;
        }
        const key = filingKey(item.record.state, item.record.number);
        if (this.written.has(key)) {
          summary.repeated += 1;
          this.held.push(item);
          continue;
        }
        this.written.add(key);
        fresh.push(item.record);
      }
      if (fresh.length > 0) {
        const rows = fresh.map((record) => toRows(record, this.nextId++));
        writeFilingRows(this.sqlite, this.prepared, rows, this.cutoff);
        summary.inserted += fresh.length;
      }
      return [];
    };
  }

  /** Filings written in bulk so far (the weight of this shard's aggregates). */
  get filings(): number {
    return this.written.size;
  }

  /** Records held back for the ordinary path (loadHeld). */
  get heldBack(): number {
    return this.held.length;
  }

  /** Indexes the first step of finishing has to build. */
  indexesToBuild(): number {
    return indexesToBuild(this.sqlite);
  }

  /**
   * Finishing, once every file is read, in three steps taken in this order
   * (a shard's steps depend on no other shard's, so a run takes each step
   * over every shard before the next: finishBulkImports' phases): the
   * indexes (`onBuilt` told of each) ...
   */
  buildIndexes(onBuilt?: () => void): void {
    buildDroppedIndexes(this.sqlite, onBuilt);
  }

  /** ... then every aggregate and the statistics (`onStep` told of each statement) ... */
  rebuildAggregates(onStep?: (done: number, total: number) => void): void {
    rebuildAfterBulkWrite(this.sqlite, onStep);
  }

  /**
   * ... then the held records, through the ordinary path (a repeated
   * filing line replaces, an XML record or an amendment merges, as in any
   * import), `onGroup` told of the records of each group written. The
   * database stays marked as a backfill until end(), once every shard has
   * finished and every file was read to its end (a shard ended alone
   * would record, in a rerun of a stopped import, the changes the others
   * do not). Returns what the held records did: filings they inserted (an
   * amendment's filing that was never written) and amendments still
   * waiting; a held record that changed a filing written in bulk changed
   * one already counted as inserted.
   */
  async loadHeld(
    db: Db,
    onWarning: (warning: Warning) => void | Promise<void> = () => {},
    onGroup: (records: number) => void = () => {},
  ): Promise<ImportSummary> {
    const later = emptySummary();
    const held = this.held.splice(0);
    if (held.length === 0) return later;
    for (const part of groups(held, IMPORT_GROUP)) {
      const options = { refresh: false, recordChanges: false };
      for (const w of await writeGroup(db, part, this.now, later, true, options)) await onWarning(w);
      onGroup(part.length);
    }
    await refreshQueued(db);
    return later;
  }

  /** Ends the backfill: the database is an ordinary one from now on, and loads record changes. */
  end(): void {
    endBulkLoad(this.sqlite);
  }
}

/**
 * Finishes the bulk loads of every shard (the run's end, also after a
 * failure: what was written gets its indexes and aggregates), as phases of
 * `progress`, each over every shard: the indexes, the aggregates (each
 * shard weighted by the filings it was given), the held-back records.
 * Returns what the held records did (BulkImport.loadHeld).
 */
export async function finishBulkImports(
  bulk: ReadonlyMap<string, BulkImport>,
  dbOf: (shard: string) => Db,
  onWarning: (warning: Warning) => void | Promise<void>,
  progress: Progress,
): Promise<ImportSummary> {
  const shards = (shard: string) => (bulk.size > 1 ? ` (${shard})` : "");
  const indexes = [...bulk.values()].reduce((n, b) => n + b.indexesToBuild(), 0);
  progress.phase("building indexes", indexes);
  let built = 0;
  for (const [shard, b] of bulk) {
    b.buildIndexes(() => {
      built += 1;
      progress.update(built, `${number(built)} of ${number(indexes)}${shards(shard)}`);
    });
  }
  progress.end(`${number(indexes)} indexes`);

  const filings = [...bulk.values()].reduce((n, b) => n + b.filings, 0);
  progress.phase("rebuilding debtor aggregates and running totals", filings);
  let before = 0;
  for (const [shard, b] of bulk) {
    // A shard's statements share its filings: a bar that moves, an estimate that is rough.
    b.rebuildAggregates((done, total) => {
      const share = before + (b.filings * done) / total;
      progress.update(share, `${number(Math.round(share))} of ${number(filings)} filings${shards(shard)}`);
    });
    before += b.filings;
  }
  progress.end(`${number(filings)} filings`);

  let later = emptySummary();
  const held = [...bulk.values()].reduce((n, b) => n + b.heldBack, 0);
  if (held === 0) return later;
  progress.phase("loading held-back records (repeated filings, amendments)", held);
  let loaded = 0;
  for (const [shard, b] of bulk) {
    const summary = await b.loadHeld(dbOf(shard), onWarning, (records) => {
      loaded += records;
      progress.update(loaded, `${number(loaded)} of ${number(held)}${shards(shard)}`);
    });
    later = sumOf(later, summary);
  }
  progress.end(`${number(held)} records`);
  return later;
}
