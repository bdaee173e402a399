/**
 * Loading a feed into several shards (src/db/shards.ts): each group read is
 * split by filing state and number, and each part is written to its
 * filing's shard by writeGroup (or a shard's own bulk writer), so every
 * filing, and every amendment kept waiting for its filing, lands in the one
 * database of its state, or of its part of a split state (an amendment
 * names its filing's number, which names the part). A filing's identity
 * (state and number) never spans shards, so the import stays idempotent
 * shard by shard. The load is recorded in every shard: each shard's
 * `data_loaded_at` says when data was last loaded, and each state's
 * currency is recorded in every part of it.
 */
import type { Db } from "../db/database.ts";
import { type LoadedStates, recordLoad } from "../db/load.ts";
import { filings } from "../db/schema.ts";
import { DEFAULT_SHARD, partsOf, type ShardDatabases, type ShardLayout, shardDb, shardOf } from "../db/shards.ts";
import { Backfills } from "./backfills.ts";
import {
  type ImportOptions,
  type ImportRange,
  type ImportSummary,
  importFeed,
  importItems,
  importRange,
  type Loaded,
  type WriteItems,
  writeGroup,
  writeOptions,
} from "./import.ts";
import { anyPending } from "./merge.ts";
import type { FeedItem, Resume, Warning } from "./read.ts";

/**
 * The shards that hold no filings: a local import into databases that are
 * all empty loads in bulk (scripts/bulk/import.ts).
 */
export async function emptyShards(shards: ShardDatabases): Promise<string[]> {
  const empty: string[] = [];
  for (const [shard, db] of shards.databases) {
    const [held] = await db.select({ id: filings.id }).from(filings).limit(1);
    if (!held) empty.push(shard);
  }
  return empty;
}

/** The filing state a read record belongs to. */
function stateOf(item: Loaded): string {
  return "amendment" in item ? item.amendment.state : item.record.state;
}

/** The number of the filing a read record is or amends: it names the part of a split state. */
function numberOf(item: Loaded): string {
  return "amendment" in item ? item.amendment.filingNumber : item.record.number;
}

/** The items of each shard, in read order. */
function splitByShard(layout: ShardLayout, items: Loaded[]): Map<string, Loaded[]> {
  const parts = new Map<string, Loaded[]>();
  for (const item of items) {
    const shard = shardOf(layout, stateOf(item), numberOf(item));
    const part = parts.get(shard);
    if (part) part.push(item);
    else parts.set(shard, [item]);
  }
  return parts;
}

/**
 * Records a load of `source` in every shard: each shard's `data_loaded_at`
 * says when data was last loaded, and each state's currency (`states`,
 * GET /states) goes to its own shard.
 */
export async function recordShardedLoad(
  shards: ShardDatabases,
  source: string,
  filings: number,
  at: Date,
  states: LoadedStates = new Map(),
) {
  for (const [shard, db] of shards.databases) {
    const own = new Map([...states].filter(([state]) => partsOf(shards.layout, state).includes(shard)));
    await recordLoad(db, source, filings, at, own);
  }
}

export type ShardedOptions = ImportOptions & {
  bulkWriters?: ReadonlyMap<string, WriteItems>;
  /**
   * The load's backfill decisions, state by state (src/feed/backfills.ts):
   * a run of several files, or a Workflow's checkpoint, keeps its own.
   * Without, importSharded decides for its file and completes the
   * backfills it began if it reads the file to its end.
   */
  backfills?: Backfills;
  /**
   * The amendments the load keeps waiting (import.ts, keptKey), for a
   * caller that reads them after: a Workflow's range, whose later ranges
   * may bring their filings.
   */
  kept?: Set<string>;
};

/**
 * The options of importFeed (or importRange) that load into every shard of
 * `shards`, and the default shard's database to pass with them.
 * `bulkWriters`, when given, are the bulk writers of the shards
 * (scripts/bulk/import.ts), in place of writeGroup: every shard was empty.
 */
async function sharded(
  shards: ShardDatabases,
  backfills: Backfills,
  options: ShardedOptions,
): Promise<[Db, ImportOptions]> {
  const now = options.now ?? new Date();
  const dbOf = (shard: string) => shardDb(shards, shard);
  const pending = new Map<string, boolean>();
  /** The amendments the run keeps waiting, until a later group applies them. */
  const kept = options.kept ?? new Set<string>();
  if (!options.bulkWriters) {
    for (const shard of shards.layout.shards) pending.set(shard, await anyPending(dbOf(shard)));
  }
  const writeItems: WriteItems = async (items, summary) => {
    const warnings: Warning[] = [];
    // Each state is decided (and its backfill marked begun) before any of its filings is written.
    const backfilling = await backfills.backfilling(items.map(stateOf), { empty: options.bulkWriters !== undefined });
    for (const [shard, part] of splitByShard(shards.layout, items)) {
      const bulk = options.bulkWriters?.get(shard);
      const written = bulk
        ? await bulk(part, summary)
        : await writeGroup(dbOf(shard), part, now, summary, pending.get(shard) ?? true, {
            ...writeOptions(options, kept),
            backfilling,
          });
      if (written.length > 0) pending.set(shard, true);
      warnings.push(...written);
    }
    return warnings;
  };
  return [
    dbOf(DEFAULT_SHARD),
    {
      recordLoad: (source, filings, at, states) => recordShardedLoad(shards, source, filings, at, states),
      ...options,
      now,
      writeItems,
    },
  ];
}

/** The backfill decisions of a load of `file` with `options`: its own, or a new set. */
const backfillsOf = (shards: ShardDatabases, file: string, options: ShardedOptions) =>
  options.backfills ?? new Backfills(shards, options.source ?? `import ${file}`, options.now ?? new Date());

/** importFeed over every shard of `shards`. */
export async function importSharded(
  shards: ShardDatabases,
  file: string,
  body: ReadableStream<Uint8Array>,
  options: ShardedOptions = {},
): Promise<ImportSummary> {
  const backfills = backfillsOf(shards, file, options);
  const [db, everyShard] = await sharded(shards, backfills, options);
  const summary = await importFeed(db, file, body, everyShard);
  // Read to its end: the backfills this load began are complete (a run's own are completed by the run).
  if (!options.backfills) await backfills.complete(options.now ?? new Date());
  return summary;
}

/**
 * importItems over every shard of `shards`: records read elsewhere (an
 * office's register, src/feed/sources/). One call is one step of a longer
 * load, so the backfills it begins are left under way (later steps go on
 * backfilling) for the load to complete at its end (completeBackfills).
 */
export async function importShardedItems(
  shards: ShardDatabases,
  file: string,
  items: AsyncIterable<FeedItem>,
  options: ShardedOptions = {},
): Promise<ImportSummary> {
  const [db, everyShard] = await sharded(shards, backfillsOf(shards, file, options), options);
  return importItems(db, file, items, everyShard);
}

/** importRange over every shard of `shards`. */
export async function importShardedRange(
  shards: ShardDatabases,
  file: string,
  body: ReadableStream<Uint8Array>,
  range: ImportRange,
  options: ShardedOptions = {},
): Promise<{ summary: ImportSummary; next: Resume | null }> {
  const [db, everyShard] = await sharded(shards, backfillsOf(shards, file, options), options);
  return importRange(db, file, body, range, everyShard);
}
