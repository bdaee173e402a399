/**
 * Loading a feed: its valid filings go to upsertFilings in groups as they
 * are read, its rejects to `onReject`. One bad filing never holds back the
 * others, and loading the same feed twice changes nothing the second time.
 */
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { type LoadSummary, recordLoad, upsertFilings } from "../db/load.ts";
import type { FilingRecord } from "../db/records.ts";
import { type FeedFormat, type Reject, readFeed } from "./read.ts";

type Db = DrizzleD1Database<any>;

export interface ImportSummary extends LoadSummary {
  /** Filings (NDJSON lines, CSV row groups) read, good or bad. */
  read: number;
  rejected: number;
}

export interface ImportOptions {
  /** The load's time; filing dates after it (beyond a day's slack) are rejected. */
  now?: Date;
  /** Recorded in data_loads; default `import FILE`. */
  source?: string;
  format?: FeedFormat;
  /**
   * Leave the aggregates (names, addresses, co-borrowers, running totals) of
   * the debtors loaded queued, for one refreshQueued() at the end of a run
   * (local imports, where nothing needs them fresh group by group).
   */
  deferRefresh?: boolean;
  /** Filings handed to upsertFilings at a time. */
  groupSize?: number;
  onReject?: (reject: Reject) => void | Promise<void>;
  /** After each group is written. */
  onProgress?: (summary: ImportSummary) => void;
}

export const IMPORT_GROUP = 500;

export async function importFeed(
  db: Db,
  file: string,
  body: ReadableStream<Uint8Array>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const now = options.now ?? new Date();
  const summary: ImportSummary = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0 };
  const size = options.groupSize ?? IMPORT_GROUP;
  let group: FilingRecord[] = [];
  const write = async () => {
    if (group.length === 0) return;
    const loaded = await upsertFilings(db, group, { now, record: false, refresh: !options.deferRefresh });
    summary.inserted += loaded.inserted;
    summary.updated += loaded.updated;
    summary.unchanged += loaded.unchanged;
    group = [];
    options.onProgress?.({ ...summary });
  };
  for await (const item of readFeed(file, body, { now, format: options.format })) {
    summary.read += 1;
    if ("reject" in item) {
      summary.rejected += 1;
      await options.onReject?.(item.reject);
      continue;
    }
    group.push(item.record);
    if (group.length >= size) await write();
  }
  await write();
  // One data load per feed file, however many groups it took.
  await recordLoad(db, options.source ?? `import ${file}`, summary.inserted + summary.updated, now);
  return summary;
}
