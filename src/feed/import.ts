/**
 * Loading a feed: its records are read in groups, each group resolved into
 * whole filings (merge.ts: amendments applied to their filings, bulk
 * records merged with what is stored, amendments whose filing is not loaded
 * yet kept aside) and written by upsertFilings. Rejects go to `onReject`,
 * loaded records with repairs or gaps to `onWarning`. One bad record never
 * holds back the others, and loading the same feed twice changes nothing
 * the second time.
 *
 * A file that stops being readable part-way (a truncated XML file) keeps
 * what was read before: the group in hand is written, the load recorded,
 * and then the error is raised.
 *
 * importRange loads one byte range of a file (a step of the platform's
 * load, src/platform/) through the same loop: from a resume point to the
 * first record boundary at or past a byte, returning where the next range
 * resumes.
 */

import { sql } from "drizzle-orm";
import type { Db } from "../db/database.ts";
import { type LoadedStates, type LoadSummary, recordLoad, upsertFilings } from "../db/load.ts";
import type { FilingRecord } from "../db/records.ts";
import { filings } from "../db/schema.ts";
import type { CsvGroup } from "./csv.ts";
import { type HeldCopies, type HeldCopy, HeldInMemory } from "./held.ts";
import {
  type AmendmentEntry,
  anyPending,
  applyAmendment,
  dropPendingStatements,
  filingKey,
  type Keyed,
  keepPendingStatements,
  mergeWithStored,
  readStored,
} from "./merge.ts";
import {
  FeedFileError,
  type FeedFormat,
  type FeedItem,
  type ReadOptions,
  type Reject,
  type Resume,
  readFeed,
  reassembled,
  type Warning,
} from "./read.ts";
import { copyKey, keyHash, type Repeats } from "./repeats.ts";

export interface ImportSummary extends LoadSummary {
  /** Records read (filings, amendment records), good or bad. */
  read: number;
  rejected: number;
  /** Records loaded with a repair or a gap (listed in the warnings). */
  warned: number;
  /** Amendment records read on their own (not listed on a filing line). */
  amendments: number;
  /** Of those, kept waiting for a filing not loaded yet. */
  pending: number;
  /** Filing records that repeat one read earlier in the same group (the last kept, or merged). */
  repeated: number;
}

export const emptySummary = (): ImportSummary => ({
  read: 0,
  inserted: 0,
  updated: 0,
  unchanged: 0,
  rejected: 0,
  warned: 0,
  amendments: 0,
  pending: 0,
  repeated: 0,
});

/** Two summaries added, field by field. */
export function sumOf(a: ImportSummary, b: ImportSummary): ImportSummary {
  const sum = emptySummary();
  for (const k of Object.keys(sum) as (keyof ImportSummary)[]) sum[k] = a[k] + b[k];
  return sum;
}

export interface ImportOptions {
  /** The load's time; filing dates after it (beyond a day's slack) are rejected. */
  now?: Date;
  /** Recorded in data_loads; default `import FILE`. */
  source?: string;
  format?: FeedFormat;
  /** Jurisdiction of records that name none (an XML file whose FilingOffice is not a state code). */
  defaultState?: string;
  /**
   * Leave the aggregates (names, addresses, co-borrowers, running totals) of
   * the debtors loaded queued, for one refreshQueued() at the end of a run
   * (local imports, where nothing needs them fresh group by group).
   */
  deferRefresh?: boolean;
  /** False to record no change-feed rows (the rest of a backfill: scripts/import.ts). */
  recordChanges?: boolean;
  /** Records handed to upsertFilings at a time. */
  groupSize?: number;
  /**
   * How each group is written, in place of writeGroup (the bulk mode of a
   * local import into an empty database); returns warnings to report.
   */
  writeItems?: WriteItems;
  onReject?: (reject: Reject) => void | Promise<void>;
  onWarning?: (warning: Warning) => void | Promise<void>;
  /** Before each group is written (awaited: a Workflow's range stops there if its file was replaced). */
  beforeWrite?: () => Promise<void>;
  /** After each group is written (awaited: a Workflow's range saves its progress). */
  onProgress?: (summary: ImportSummary) => void | Promise<void>;
  /**
   * The filings the file gives more than once (findRepeats, read first):
   * each is compared with what is stored in its last version only, the
   * earlier ones held back until it comes (see importFeed).
   */
  repeats?: Repeats;
  /** Where earlier copies wait for their last (held.ts): in memory unless given. */
  held?: HeldCopies;
  /** The read position of the first record read (a range of a file: the records before it). */
  positionFrom?: number;
  /** Records the file's data load, in place of recordLoad on `db` (a sharded import records it in every shard). */
  recordLoad?: (source: string, filings: number, at: Date, states: LoadedStates) => Promise<void>;
}

export const IMPORT_GROUP = 500;

/** How writeGroup writes for an import with `options`. */
export const writeOptions = (options: ImportOptions, kept?: Set<string>) => ({
  refresh: !options.deferRefresh,
  recordChanges: options.recordChanges !== false,
  ...(kept ? { kept } : {}),
});

export type Loaded = Exclude<FeedItem, { reject: Reject }>;

/** Writes one group of read records, adding to `summary`; returns warnings to report. */
export type WriteItems = (items: Loaded[], summary: ImportSummary) => Promise<Warning[]>;

type FilingItem = Extract<Loaded, { record: FilingRecord }>;

/**
 * A filing met again within one load: the later record replaces the
 * earlier one, or, when it adds to what is stored (XML), merges into it.
 */
function combineRepeat(
  before: { record: FilingRecord; merge: boolean } | undefined,
  item: { record: FilingRecord; merge: boolean },
): { record: FilingRecord; merge: boolean } {
  return {
    record: before && item.merge ? mergeWithStored(item.record, before.record) : item.record,
    merge: item.merge || (before?.merge ?? false),
  };
}

/** An amendment kept waiting, as a run remembers it: its filing's key and its number. */
const keptKey = (filing: string, amendment: string) => `${filing}\u0000${amendment}`;

/**
 * Resolves a group into whole filings and writes them; returns the
 * warnings of amendments kept waiting.
 */
export async function writeGroup(
  db: Db,
  items: Loaded[],
  now: Date,
  summary: ImportSummary,
  pendingMayExist: boolean,
  {
    refresh = true,
    recordChanges = true,
    backfilling,
    kept,
  }: {
    refresh?: boolean;
    recordChanges?: boolean;
    backfilling?: ReadonlySet<string>;
    /** The amendments the run kept waiting so far (keptKey), counted in `summary.pending`: one applied later in the run no longer waits. */
    kept?: Set<string>;
  } = {},
): Promise<Warning[]> {
  const records = new Map<string, { record: FilingRecord; merge: boolean }>();
  const amendments: (AmendmentEntry & Keyed & { item: Loaded })[] = [];
  for (const item of items) {
    if ("amendment" in item) {
      const { state, filingNumber, ...entry } = item.amendment;
      amendments.push({ ...entry, state, number: filingNumber, item });
      continue;
    }
    const key = filingKey(item.record.state, item.record.number);
    const before = records.get(key);
    if (before) summary.repeated += 1;
    records.set(key, combineRepeat(before, item));
  }
  // What the database holds for bulk records and for amendments whose filing is not in the group.
  const lookups: Keyed[] = [
    ...[...records.values()].filter((r) => r.merge).map(({ record }) => record),
    ...amendments.filter((a) => !records.has(filingKey(a.state, a.number))),
  ];
  const pendingKeys = pendingMayExist ? [...records.values()].map(({ record }) => record) : [];
  const nothingStored: Awaited<ReturnType<typeof readStored>> = { stored: new Map(), waiting: new Map() };
  const { stored, waiting } =
    lookups.length + pendingKeys.length > 0
      ? await readStored(db, [...lookups, ...pendingKeys], { pending: pendingMayExist })
      : nothingStored;

  for (const [key, entry] of records) {
    const before = entry.merge ? stored.get(key) : undefined;
    if (before) entry.record = mergeWithStored(entry.record, before);
  }
  // Amendments that waited for a filing of this group (or one an amendment
  // here touches) go first, so the group's own copy of one wins.
  const applied: Keyed[] = [];
  const settle = (key: string, entry: { record: FilingRecord }) => {
    const queued = waiting.get(key);
    if (!queued) return;
    for (const pending of queued) {
      entry.record = applyAmendment(entry.record, pending);
      if (kept?.delete(keptKey(key, pending.amendment.number))) summary.pending -= 1;
    }
    waiting.delete(key);
    applied.push(entry.record);
  };
  for (const [key, entry] of records) settle(key, entry);
  const keep: Parameters<typeof keepPendingStatements>[1] = [];
  const waitingWarnings: Warning[] = [];
  for (const a of amendments) {
    const key = filingKey(a.state, a.number);
    let target = records.get(key);
    const storedRecord = stored.get(key);
    if (!target && storedRecord) {
      target = { record: storedRecord, merge: true };
      records.set(key, target);
      settle(key, target);
    }
    if (target) {
      target.record = applyAmendment(target.record, a);
      continue;
    }
    summary.pending += 1;
    kept?.add(keptKey(key, a.amendment.number));
    keep.push({ ...a, source: `${a.item.place.file}:${a.item.place.line}` });
    waitingWarnings.push({
      ...a.item.place,
      filing: `${a.state} ${a.number}`,
      amendment: a.amendment.number,
      reason: "its filing is not loaded yet: the amendment is kept and applied when the filing arrives",
    });
  }
  /** Filings written here that another load kept amendments for after this one read what waits. */
  const late: Keyed[] = [];
  const write = { now, record: false, refresh, recordChanges, backfilling, onWaiting: (f: Keyed[]) => late.push(...f) };
  const loaded = await upsertFilings(
    db,
    [...records.values()].map((r) => r.record),
    write,
  );
  summary.inserted += loaded.inserted;
  summary.updated += loaded.updated;
  summary.unchanged += loaded.unchanged;
  // The amendments kept are checked against the filings stored as they are
  // kept, in the same transaction: a filing another load wrote since this
  // one read gets them now, rather than waiting for its next load.
  const keptFilings = keep.map((k) => [k.state, k.number]);
  const storedNow =
    keptFilings.length > 0
      ? db
          .select({ state: filings.state, number: filings.number })
          .from(filings)
          .where(
            sql`(${filings.state}, ${filings.number}) in (select value ->> 0, value ->> 1 from json_each(${JSON.stringify(keptFilings)}))`,
          )
      : undefined;
  const statements = [
    ...dropPendingStatements(db, applied),
    ...keepPendingStatements(db, keep),
    ...(storedNow ? [storedNow] : []),
  ];
  if (statements.length > 0) {
    const results = await db.batch(statements as [(typeof statements)[number], ...typeof statements]);
    if (storedNow) late.push(...(results[statements.length - 1] as Keyed[]));
  }
  if (late.length === 0) return waitingWarnings;
  const settled = await applyWaiting(db, late, write);
  summary.updated += settled.updated;
  const settledKept = keep.filter((k) => settled.keys.has(filingKey(k.state, k.number)));
  summary.pending -= settledKept.length;
  for (const k of settledKept) kept?.delete(keptKey(filingKey(k.state, k.number), k.amendment.number));
  return waitingWarnings.filter((_, i) => {
    const k = keep[i];
    return !k || !settled.keys.has(filingKey(k.state, k.number));
  });
}

/**
 * Applies the amendments waiting for the stored filings `keys` (a race
 * between two loads, see writeGroup) and drops them from the waiting list.
 */
async function applyWaiting(
  db: Db,
  keys: Keyed[],
  write: Parameters<typeof upsertFilings>[2] & object,
): Promise<{ updated: number; keys: Set<string> }> {
  const { stored, waiting } = await readStored(db, keys, { pending: true });
  const records: FilingRecord[] = [];
  const applied: Keyed[] = [];
  for (const [key, queued] of waiting) {
    let record = stored.get(key);
    if (!record) continue;
    for (const entry of queued) record = applyAmendment(record, entry);
    records.push(record);
    applied.push(record);
  }
  if (records.length === 0) return { updated: 0, keys: new Set() };
  const loaded = await upsertFilings(db, records, { ...write, onWaiting: undefined });
  const drop = dropPendingStatements(db, applied);
  await db.batch(drop as [(typeof drop)[number], ...typeof drop]);
  return { updated: loaded.updated, keys: new Set(applied.map((k) => filingKey(k.state, k.number))) };
}

export async function importFeed(
  db: Db,
  file: string,
  body: ReadableStream<Uint8Array>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const timed = { ...options, now: options.now ?? new Date() };
  return (await load(db, file, readItems(file, body, timed), timed)).summary;
}

/**
 * importFeed over records read elsewhere (an office's register assembled
 * from its rows: src/feed/sources/), each a FeedItem as readFeed gives.
 */
export async function importItems(
  db: Db,
  file: string,
  items: AsyncIterable<FeedItem>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  return (await load(db, file, items, options)).summary;
}

/** A byte range of a file: from a resume point (the file's start when none) to the first record boundary past `until`. */
export type ImportRange = Pick<ReadOptions, "from"> & Required<Pick<ReadOptions, "until">>;

/** A FeedFileError as the import throws it: with what it wrote before the file broke. */
type BrokenFileError = FeedFileError & { summary?: ImportSummary };

/** What the import wrote before `err` stopped its file (the importer and the Workflow count it): the import attaches it to every such error. */
export const writtenBefore = (err: FeedFileError): ImportSummary => (err as BrokenFileError).summary ?? emptySummary();

/** The later of two as-of dates of a state's data, where null is none given. */
export const laterAsOf = (a: string | null, b: string | null): string | null =>
  a === null || (b !== null && b > a) ? b : a;

/**
 * importFeed over one range of `file`; `body` holds the file from
 * `range.from` on. Returns what it loaded and where the next range starts
 * (null once the file has ended).
 */
export function importRange(
  db: Db,
  file: string,
  body: ReadableStream<Uint8Array>,
  range: ImportRange,
  options: ImportOptions = {},
): Promise<{ summary: ImportSummary; next: Resume | null }> {
  const timed = { ...options, now: options.now ?? new Date() };
  return load(db, file, readItems(file, body, timed, range), timed, true);
}

/** The records of `file` (or of one range of it) as readFeed reads them for an import with `options`. */
function readItems(file: string, body: ReadableStream<Uint8Array>, options: ImportOptions, range?: ImportRange) {
  return readFeed(file, body, {
    now: options.now,
    format: options.format,
    defaultState: options.defaultState,
    ...(range ?? {}),
  });
}

async function load(
  db: Db,
  file: string,
  items: AsyncIterable<FeedItem, Resume | null | undefined>,
  options: ImportOptions,
  /** The items are one range of a file: a file that breaks in it has not ended. */
  ranged = false,
): Promise<{ summary: ImportSummary; next: Resume | null }> {
  const now = options.now ?? new Date();
  const summary = emptySummary();
  const size = options.groupSize ?? IMPORT_GROUP;
  let pendingMayExist = await anyPending(db);
  const kept = new Set<string>();
  const writeItems: WriteItems =
    options.writeItems ??
    (async (items, into) => {
      const waiting = await writeGroup(db, items, now, into, pendingMayExist, writeOptions(options, kept));
      if (waiting.length > 0) pendingMayExist = true;
      return waiting;
    });
  let group: Loaded[] = [];
  /** The states of the records loaded, each with the newest as-of date the file gave for it. */
  const states = new Map<string, string | null>();
  const noteState = (item: Loaded) => {
    const state = ("amendment" in item ? item.amendment.state : item.record.state).toUpperCase();
    const asOf = "asOf" in item ? (item.asOf ?? null) : null;
    states.set(state, laterAsOf(states.get(state) ?? null, asOf));
  };
  /** Counts and reports an item read, and queues it to load unless it is a reject. */
  const accept = async (item: FeedItem) => {
    if ("reject" in item) {
      summary.rejected += 1;
      await options.onReject?.(item.reject);
      return;
    }
    if ("amendment" in item) summary.amendments += 1;
    if (item.warning) {
      summary.warned += 1;
      await options.onWarning?.(item.warning);
    }
    noteState(item);
    group.push(item);
  };
  const held: HeldCopies = options.held ?? new HeldInMemory();
  /** Last copies of repeated filings read, folded with their held copies when the group is written. */
  let lastCopies: { hash: string; copy: HeldCopy }[] = [];
  /**
   * One filing of the copies of a key hash (in read order, the last copy
   * last): records combined into the last (combineRepeat), CSV runs read
   * again together (reassembled). A different filing whose key shares the
   * hash is loaded as read.
   */
  const fold = async (copies: HeldCopy[]) => {
    const last = copies.at(-1);
    if (!last) return;
    const keyOf = (c: HeldCopy) =>
      "group" in c
        ? filingKey(c.group.key.state, c.group.key.number)
        : filingKey(c.item.record.state, c.item.record.number);
    const key = keyOf(last);
    const runs: CsvGroup[] = [];
    let combined: FilingItem | undefined;
    for (const copy of copies) {
      if (keyOf(copy) !== key) {
        if ("group" in copy) for (const item of reassembled(file, [copy.group], schemaOptions)) await accept(item);
        else group.push(copy.item);
        continue;
      }
      if (runs.length > 0 || combined) summary.repeated += 1;
      if ("group" in copy) runs.push(copy.group);
      else combined = combined ? { ...copy.item, ...combineRepeat(combined, copy.item) } : copy.item;
    }
    if (combined) group.push(combined);
    for (const item of runs.length > 0 ? reassembled(file, runs, schemaOptions) : []) await accept(item);
  };
  const write = async () => {
    if (lastCopies.length > 0) {
      const copies = lastCopies;
      lastCopies = [];
      const earlier = await held.take(copies.map((c) => c.hash));
      for (const { hash, copy } of copies) await fold([...(earlier.get(hash) ?? []), copy]);
    }
    if (group.length === 0) return;
    await options.beforeWrite?.();
    const warnings = await writeItems(group, summary);
    group = [];
    for (const w of warnings) await options.onWarning?.(w);
    await options.onProgress?.({ ...summary });
  };
  const finish = async (ended: boolean) => {
    await write();
    await held.flush?.();
    // Copies whose last copy was never read (the file stopped early) load as read, once the file has ended.
    if (ended) {
      for (const copies of (await held.rest()).values()) await fold(copies);
      await write();
    }
    // One data load per feed file, however many groups it took.
    const source = options.source ?? `import ${file}`;
    if (options.recordLoad) await options.recordLoad(source, summary.inserted + summary.updated, now, states);
    else await recordLoad(db, source, summary.inserted + summary.updated, now, states);
  };
  const schemaOptions = { now, defaultState: options.defaultState };
  const read = items[Symbol.asyncIterator]();
  let next: Resume | null;
  try {
    for (;;) {
      const step = await read.next();
      if (step.done) {
        next = step.value ?? null;
        break;
      }
      const item = step.value;
      // Its place in the file's read order (a range starts where the ranges before it ended).
      const position = (options.positionFrom ?? 0) + summary.read;
      summary.read += 1;
      const key = copyKey(item);
      const hash = key && keyHash(key);
      const last = hash === undefined ? undefined : options.repeats?.get(hash);
      if (hash === undefined || last === undefined) {
        // Not a copy of a repeated filing; or a later filing of a CSV run already held or read whole.
        if (!(item.csv && options.repeats?.has(keyHash(item.csv.key)))) await accept(item);
        // Written a group at a time: without this a file without repeats was held whole and written at its end.
        if (group.length + lastCopies.length >= size) await write();
        continue;
      }
      let copy: HeldCopy;
      if (item.csv && "rows" in item.csv) copy = { position, group: item.csv };
      else if ("record" in item) {
        // A record's warnings are its own: reported as it is read, whichever copy is loaded.
        if (item.warning) {
          summary.warned += 1;
          await options.onWarning?.(item.warning);
        }
        noteState(item);
        copy = { position, item };
      } else continue;
      if (position < last) await held.hold(hash, copy);
      else lastCopies.push({ hash, copy });
      if (group.length + lastCopies.length >= size) await write();
    }
  } catch (err) {
    // A file that stops being readable keeps what was read before it.
    if (err instanceof FeedFileError) {
      await finish(!ranged);
      (err as BrokenFileError).summary = { ...summary };
    }
    throw err;
  }
  await finish(next === null);
  return { summary, next };
}
