/**
 * The LoadFeed Workflow: one instance loads one put of a feed file from the
 * feeds bucket (its id from the key, etag and upload time: feedFiles.ts),
 * next to the data, in steps that each do a bounded part and return a small
 * checkpoint:
 *
 * 1. `begin`: checks the file is still that version, and opens (or finds)
 *    its load record in D1 (loadRecord.ts). A load restarted after failing
 *    for good resumes from the record's last checkpoint; a complete one
 *    ends at once.
 * 2. `scan N`: the first reading, range by range (the CLI reads the whole
 *    file once before loading it too): each filing key the file gives is
 *    recorded with the positions of its first and last copy
 *    (staging.ts), and the states it names are noted.
 * 3. `backfills`: each of those states is decided once, before anything is
 *    written (src/feed/backfills.ts: a state the service holds no filing
 *    of is backfilled, its filings not announced), and the decisions kept
 *    in the checkpoint; the file's object metadata can declare the load a
 *    backfill (`backfill: yes|force`, what the CLI's `--backfill` puts).
 * 4. `range N`: reads the file from the checkpoint's resume point to the
 *    first record boundary at or past RANGE_BYTES further (or MAX_RECORDS
 *    records), an R2 range read on the condition that the etag still
 *    matches, through the CLI's readers and loader (importShardedRange):
 *    each filing to its state's shard, in D1 batches within D1's limits,
 *    each group after a head saying the file is still that version (a load
 *    whose file was replaced stops there, writing no more). A record that
 *    straddles the range's end is read whole by this range.
 *    A filing the file gives more than once is compared with what is
 *    stored in its last copy only, whatever range each copy falls in: the
 *    range asks the scan which of its filings repeat, holds their earlier
 *    copies in D1, and folds them into the last (src/feed/held.ts). It puts
 *    its rejects and warnings beside the file, saves its checkpoint in the
 *    load record, and returns it; while it writes, it saves how far its
 *    groups have got every two seconds, for the CLI that follows the
 *    load. A retried range, or one run again after a restart, rewrites
 *    nothing it committed: the loader compares each filing with what is
 *    stored (upsertFilings).
 * 5. `aggregates N`: rebuilds the aggregates of the debtors the load queued,
 *    a bounded number per batch, as the CLI does once after its load,
 *    saving how many are left as it goes.
 * 6. `finish`: checks the file is still that version (a replaced one's
 *    load stops, recording nothing), records the load in every shard
 *    (data_loads, what `data_source_last_updated` reads; state_loads, each
 *    state's currency for GET /states), completes the backfills it made,
 *    joins the rejects and warnings, and marks the record complete; `clear
 *    staging N` then empties what the scan and the ranges kept. Its summary
 *    is the instance's output.
 *
 * A step that keeps failing, or a file that is not well-formed, fails the
 * load: what it committed stays (each filing written whole) and gets its
 * aggregates, the instance errors saying why, and restarting it (or
 * running the CLI on the same file again) finishes it from the last
 * checkpoint. A load stopped because its file was replaced or deleted can
 * never resume: its staging is emptied then.
 */
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from "cloudflare:workers";
import { NonRetryableError } from "cloudflare:workflows";
import { drizzle } from "drizzle-orm/d1";
import { z } from "zod";
import { type LoadedStates, refreshQueued } from "../db/load.ts";
import * as schema from "../db/schema.ts";
import { debtorsToRefresh } from "../db/schema.ts";
import { type ShardDatabases, shardDb, shardsOf } from "../db/shards.ts";
import { BackfillRefused, Backfills, type Declared } from "../feed/backfills.ts";
import { type ImportRange, type ImportSummary, laterAsOf, sumOf, writtenBefore } from "../feed/import.ts";
import { filingOfKey } from "../feed/merge.ts";
import { FeedFileError, type FeedItem, readFeed } from "../feed/read.ts";
import { copyKey, keyHash, stateOfItem } from "../feed/repeats.ts";
import { importShardedRange, recordShardedLoad } from "../feed/shardedImport.ts";
import { nudgeDispatcher } from "../webhooks/worker.ts";
import { etag, stateOfKey } from "./feedFiles.ts";
import { beginLoad, type Checkpoint, readLoad, saveCheckpoint, saveProgress, saveSummary } from "./loadRecord.ts";
import { joinProblems, RangeProblems } from "./problems.ts";
import { clearStaging, givenFrom, HeldInD1, recordKeys, repeatsOf } from "./staging.ts";

/** Bytes a range step reads (it ends at the first record boundary past them). */
const RANGE_BYTES = 4 * 1024 * 1024;
/**
 * Records a range step reads at most. A group of 100 filings costs about
 * two D1 queries per shard it touches; 10,000 records keep a step well
 * within the 1,000 D1 queries a Worker invocation may make (Workers Paid).
 */
const MAX_RECORDS = 10_000;
/** Queued debtors refreshed per D1 batch, and batches per aggregates step (3 queries each, per shard). */
const REFRESH_DEBTORS = 1_000;
const REFRESH_BATCHES = 50;
/**
 * How often a step saves its progress (loadRecord.ts, saveProgress) for
 * the CLI that follows the load: a range or an aggregates step takes up
 * to a minute, and one small write every few seconds costs nothing beside it.
 */
const PROGRESS_MS = 2_000;

const loadParams = z.object({
  key: z.string().min(1),
  /** Any form of it (feedFiles.ts, etag): bare once parsed. */
  etag,
  size: z.number().int().nonnegative(),
  /** Bytes per range step: RANGE_BYTES unless given (tests and benchmarks use smaller ranges). */
  rangeBytes: z.number().int().positive().optional(),
});

export type LoadParams = z.infer<typeof loadParams>;

/** Ranges retry on their own: a D1 or R2 hiccup costs the range, never the load. */
const RANGE_STEP: WorkflowStepConfig = { retries: { limit: 5, delay: "5 seconds", backoff: "exponential" } };

/** The drizzle handle of every shard of the Worker's layout. */
export function shardDatabasesOf(env: Env): ShardDatabases {
  const { layout, databases } = shardsOf(env);
  return {
    layout,
    databases: new Map([...databases].map(([shard, d1]) => [shard, drizzle(d1, { schema, casing: "snake_case" })])),
  };
}

/** The states of earlier ranges and of this one, each with the newer as-of date. */
function mergeStates(earlier: Record<string, string | null>, range: LoadedStates): Record<string, string | null> {
  const merged = { ...earlier };
  for (const [state, asOf] of range) {
    merged[state] = laterAsOf(merged[state] ?? null, asOf);
  }
  return merged;
}

const empty = () => new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });

/** Why a load stops when its file was replaced: it writes no more, and records nothing. */
const replaced = (key: string) => `${key} was replaced during its load; the new version's load takes it`;

/** The file from byte `offset` on, if it is still the version with `etag`. */
async function bytesFrom(bucket: R2Bucket, key: string, etag: string, offset: number) {
  const object = await bucket.get(key, { range: { offset }, onlyIf: { etagMatches: etag } });
  if (object === null) throw new NonRetryableError(`${key} is no longer in the bucket`);
  // The file was replaced while this version loaded: stop rather than read bytes of two versions.
  if (!("body" in object)) throw new NonRetryableError(replaced(key));
  return object.body;
}

/**
 * Throws when the file is no longer the version with `etag`: before each
 * group a range writes and before the finish, so that a load whose file was
 * replaced writes no more than the group under way and never records
 * itself over the newer version's load.
 */
async function stillVersion(bucket: R2Bucket, key: string, etag: string): Promise<void> {
  const head = await bucket.head(key);
  if (!head) throw new NonRetryableError(`${key} is no longer in the bucket`);
  if (head.etag !== etag) throw new NonRetryableError(replaced(key));
}

/** Steps `name 1`, `name 2`, ... until every shard's queue of debtors is empty (a pull's too: pullSource.ts). */
export async function refreshAggregates(env: Env, step: WorkflowStep, name: string): Promise<void> {
  for (let n = 1, more = true; more; n++) more = await step.do(`${name} ${n}`, () => aggregates(env));
}

/**
 * Refreshes a bounded part of every shard's queue of debtors; returns
 * whether any is left. `onBatch` is told of each batch done, with the
 * debtors it took off the queue.
 */
async function aggregates(env: Env, onBatch: (taken: number) => Promise<void> = async () => {}): Promise<boolean> {
  let more = false;
  for (const db of shardDatabasesOf(env).databases.values()) {
    let left = true;
    for (let i = 0; i < REFRESH_BATCHES && left; i++) {
      let taken = 0;
      left = await refreshQueued(db, {
        limit: REFRESH_DEBTORS,
        onPart: (keys) => {
          taken = keys;
        },
      });
      await onBatch(taken);
    }
    more ||= left;
  }
  return more;
}

/** Debtors queued for their aggregates in every shard. */
async function queuedDebtors(shards: ShardDatabases): Promise<number> {
  let queued = 0;
  for (const db of shards.databases.values()) queued += await db.$count(debtorsToRefresh);
  return queued;
}

export class LoadFeed extends WorkflowEntrypoint<Env, LoadParams> {
  override async run(event: Readonly<WorkflowEvent<LoadParams>>, step: WorkflowStep): Promise<ImportSummary> {
    const params = loadParams.parse(event.payload);
    const id = event.instanceId;
    // The load's time, the same in every step and after a restart: the
    // loader's "now" (future dates, facet days) and data_loads' time.
    const now = new Date(event.timestamp);
    try {
      const begun = await step.do("begin", () => this.begin(id, params, now));
      if (begun.complete) return begun.checkpoint.summary;
      let checkpoint = begun.checkpoint;
      for (let n = 1; checkpoint.scan?.next !== null; n++) {
        const from = checkpoint;
        checkpoint = await step.do(`scan ${n}`, RANGE_STEP, () => this.scan(id, params, from, now));
      }
      if (!checkpoint.backfills) {
        const from = checkpoint;
        checkpoint = await step.do("backfills", () => this.decideBackfills(id, params, from, now, begun.declared));
      }
      for (let n = 1; checkpoint.next !== null; n++) {
        const from = checkpoint;
        checkpoint = await step.do(`range ${n}`, RANGE_STEP, () => this.range(id, params, from, now));
      }
      for (let n = 1, more = true; more; n++) more = await step.do(`aggregates ${n}`, () => this.aggregates(id, n));
      const done = checkpoint;
      const summary = await step.do("finish", () => this.finish(id, params, done, now));
      for (let n = 1, more = true; more; n++) more = await step.do(`clear staging ${n}`, () => this.clearStaging(id));
      return summary;
    } catch (err) {
      // A step's NonRetryableError reaches run() as "NonRetryableError: reason".
      const reason = (err instanceof Error ? err.message : String(err)).replace(/^NonRetryableError:?\s*/, "");
      // What the load committed gets its aggregates, as the CLI's does after
      // a failure; if D1 is what failed, the next load's refresh does it.
      await this.refreshAggregates(step, "aggregates after the failure").catch(() => {});
      const resumable = await step.do("record the failure", async () => {
        const db = shardDb(shardDatabasesOf(this.env));
        // A load that failed before its record was made (its file gone or
        // replaced) gets one, so that --status lists it with its instance's error.
        const file = { id, key: params.key, etag: params.etag, bytes: params.size };
        await beginLoad(db, file, now);
        // Webhooks: what the load committed before failing is matched too.
        await nudgeDispatcher(this.env.WEBHOOK_DISPATCH, `load ${params.key}`);
        if (!(await this.stillThisVersion(params))) return false;
        await joinProblems(this.env.FEEDS, id, params.key, true);
        return true;
      });
      // Its file version gone (replaced or deleted), the load can never resume: its staging goes too.
      if (!resumable) {
        try {
          for (let n = 1, more = true; more; n++) {
            more = await step.do(`clear staging after the failure ${n}`, () => this.clearStaging(id));
          }
        } catch {
          // Left for an operator; the instance still says why the load failed.
        }
      }
      // Handled: the instance errors with the reason (a NonRetryableError
      // escaping run() would end it with a generic message instead).
      throw new Error(reason);
    }
  }

  private async begin(id: string, params: LoadParams, now: Date) {
    const head = await this.env.FEEDS.head(params.key);
    if (!head) throw new NonRetryableError(`${params.key} is not in the bucket`);
    if (head.etag !== params.etag) {
      throw new NonRetryableError(`${params.key} was replaced before its load began (etag ${params.etag} is gone)`);
    }
    const shards = shardDatabasesOf(this.env);
    const record = await beginLoad(shardDb(shards), { id, key: params.key, etag: head.etag, bytes: head.size }, now);
    return {
      complete: record.checkpoint.finished === true,
      checkpoint: record.checkpoint,
      declared: declaredBy(head.customMetadata?.backfill),
    };
  }

  /**
   * One step of the first reading: the filing keys and states of the range
   * from the scan's resume point. A file that breaks ends the scan there:
   * the ranges load what comes before and stop at the same place.
   */
  private async scan(id: string, params: LoadParams, from: Checkpoint, now: Date): Promise<Checkpoint> {
    const at = from.scan ?? { next: { byte: 0, line: 1 }, read: 0, states: [] };
    const start = at.next ?? { byte: 0, line: 1 };
    const defaultState = stateOfKey(params.key);
    const source =
      start.byte >= params.size ? empty() : await bytesFrom(this.env.FEEDS, params.key, params.etag, start.byte);
    const items = readFeed(params.key, source, {
      now,
      ...(defaultState ? { defaultState } : {}),
      ...(start.byte > 0 ? { from: start } : {}),
      until: { byte: start.byte + (params.rangeBytes ?? RANGE_BYTES), records: MAX_RECORDS },
    });
    const keys: [string, number][] = [];
    const states = new Set(at.states);
    let read = at.read;
    let next: Checkpoint["next"] = null;
    try {
      for (let step = await items.next(); ; step = await items.next()) {
        if (step.done) {
          next = step.value;
          break;
        }
        const key = copyKey(step.value);
        if (key) keys.push([keyHash(key), read]);
        const state = stateOfItem(step.value);
        if (state) states.add(state);
        read += 1;
      }
    } catch (err) {
      if (!(err instanceof FeedFileError)) throw err;
    }
    await recordKeys(shardDb(shardDatabasesOf(this.env)), id, keys);
    const checkpoint: Checkpoint = { ...from, scan: { next, read, states: [...states].sort() } };
    await saveCheckpoint(shardDb(shardDatabasesOf(this.env)), id, checkpoint, new Date());
    return checkpoint;
  }

  /** Decides, once, whether the load backfills each state the scan met (src/feed/backfills.ts). */
  private async decideBackfills(
    id: string,
    params: LoadParams,
    from: Checkpoint,
    now: Date,
    declared: Declared,
  ): Promise<Checkpoint> {
    const shards = shardDatabasesOf(this.env);
    const backfills = new Backfills(shards, `load ${params.key}`, now, {}, declared);
    try {
      await backfills.backfilling(from.scan?.states ?? []);
    } catch (err) {
      if (err instanceof BackfillRefused) throw new NonRetryableError(err.message);
      throw err;
    }
    const checkpoint: Checkpoint = { ...from, backfills: backfills.decisions() };
    await saveCheckpoint(shardDb(shards), id, checkpoint, new Date());
    return checkpoint;
  }

  private async range(id: string, params: LoadParams, from: Checkpoint, now: Date): Promise<Checkpoint> {
    const start = from.next ?? { byte: 0, line: 1 };
    const shards = shardDatabasesOf(this.env);
    const problems = new RangeProblems();
    const range: ImportRange = {
      ...(start.byte > 0 ? { from: start } : {}),
      until: { byte: start.byte + (params.rangeBytes ?? RANGE_BYTES), records: MAX_RECORDS },
    };
    const defaultState = stateOfKey(params.key);
    // A range starting at the file's end still runs the reader's end-of-file checks.
    const source =
      start.byte >= params.size ? empty() : await bytesFrom(this.env.FEEDS, params.key, params.etag, start.byte);
    // Which of the range's filings the file repeats, and where their last
    // copy is: a first reading of the range for its keys (one R2 read, teed:
    // the load's branch holds what this reading has passed, at most the
    // range), then the scan's record of the file (staging.ts).
    const [first, teed] = source.tee();
    // The bytes the load has read, for its progress (Checkpoint.writing).
    let read = 0;
    const body = teed.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          read += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    const hashes: string[] = [];
    try {
      for await (const item of readFeed(params.key, first, {
        now,
        ...(defaultState ? { defaultState } : {}),
        ...range,
      })) {
        const key = copyKey(item as FeedItem);
        if (key) hashes.push(keyHash(key));
      }
    } catch (err) {
      if (!(err instanceof FeedFileError)) throw err;
    }
    const db = shardDb(shards);
    const repeats = await repeatsOf(db, id, hashes);
    let loaded: LoadedStates = new Map();
    let saved = Date.now();
    const kept = new Set<string>();
    try {
      const { summary: written, next } = await importShardedRange(shards, params.key, body, range, {
        now,
        ...(repeats.size > 0 ? { repeats } : {}),
        held: new HeldInD1(db, id),
        positionFrom: from.summary.read,
        backfills: new Backfills(shards, `load ${params.key}`, now, from.backfills ?? {}),
        source: `load ${params.key}`,
        ...(defaultState ? { defaultState } : {}),
        kept,
        beforeWrite: () => stillVersion(this.env.FEEDS, params.key, params.etag),
        // The aggregates are rebuilt once, by the aggregates steps.
        deferRefresh: true,
        // Recorded once, by the finish step, with the states every range loaded.
        recordLoad: async (_source, _filings, _at, states) => {
          loaded = states;
        },
        onReject: problems.reject,
        onWarning: problems.warn,
        // A range takes up to a minute: what its groups have committed, every few seconds.
        onProgress: async (written) => {
          if (Date.now() - saved < PROGRESS_MS) return;
          saved = Date.now();
          const writing = { from: start.byte, done: Math.min(params.size, start.byte + read) };
          await saveProgress(db, id, "writing", writing, sumOf(from.summary, written));
        },
      });
      // An amendment left waiting for a filing a later range brings is
      // applied there, as the CLI's later group applies it: not waiting.
      const hashes = [...kept].map((k) => keyHash(filingOfKey(k)));
      const later = await givenFrom(db, id, hashes, from.summary.read + written.read);
      const applied = hashes.filter((h) => later.has(h)).length;
      const summary = { ...written, pending: written.pending - applied };
      await problems.save(this.env.FEEDS, id, start.byte);
      const checkpoint: Checkpoint = {
        ...from,
        // The range's progress is its checkpoint now.
        writing: undefined,
        next,
        done: next?.byte ?? params.size,
        summary: sumOf(from.summary, summary),
        ranges: from.ranges + 1,
        states: mergeStates(from.states ?? {}, loaded),
      };
      await saveCheckpoint(shardDb(shards), id, checkpoint, new Date());
      // Webhooks: the changes this range committed are matched now (src/webhooks/).
      await nudgeDispatcher(this.env.WEBHOOK_DISPATCH, `load ${params.key}`);
      return checkpoint;
    } catch (err) {
      if (!(err instanceof FeedFileError)) throw err;
      // The file breaks here: what the range wrote before the break stays,
      // and is counted in the record; the checkpoint stays where the range
      // began, so that a restart reads the range again.
      await problems.save(this.env.FEEDS, id, start.byte);
      const written = writtenBefore(err);
      const summary = sumOf(from.summary, written);
      // What came before the break is loaded data, recorded as the CLI records it after a break.
      const states = new Map(Object.entries(mergeStates(from.states ?? {}, loaded)));
      await recordShardedLoad(shards, `load ${params.key}`, summary.inserted + summary.updated, now, states);
      // Its counts only: run() records the failure, as for any other.
      await saveSummary(shardDb(shards), id, summary, new Date());
      throw new NonRetryableError(err.message);
    }
  }

  /**
   * Step `aggregates n`: a bounded part of every shard's queue (see
   * aggregates), its progress saved as it goes (Checkpoint.refreshing:
   * the queue's length before the first step, and what is left). Returns
   * whether any is left.
   */
  private async aggregates(id: string, n: number): Promise<boolean> {
    const shards = shardDatabasesOf(this.env);
    const db = shardDb(shards);
    let left = await queuedDebtors(shards);
    const queued = n === 1 ? left : ((await readLoad(db, id))?.checkpoint.refreshing?.queued ?? left);
    await saveProgress(db, id, "refreshing", { queued, left });
    let saved = Date.now();
    const more = await aggregates(this.env, async (taken) => {
      // What the batch took: up to REFRESH_DEBTORS of its shard's queue, none of an empty one.
      left = Math.max(0, left - taken);
      if (Date.now() - saved < PROGRESS_MS) return;
      saved = Date.now();
      await saveProgress(db, id, "refreshing", { queued, left });
    });
    await saveProgress(db, id, "refreshing", { queued, left: more ? await queuedDebtors(shards) : 0 });
    return more;
  }

  /**
   * Whether the file is still the version this load read. The rejects and
   * warnings beside it are its current version's: a load of a version
   * replaced since leaves them alone (its parts stay under loads/ID/).
   */
  private async stillThisVersion(params: LoadParams): Promise<boolean> {
    return (await this.env.FEEDS.head(params.key))?.etag === params.etag;
  }

  private refreshAggregates(step: WorkflowStep, name: string): Promise<void> {
    return refreshAggregates(this.env, step, name);
  }

  private async finish(id: string, params: LoadParams, checkpoint: Checkpoint, now: Date): Promise<ImportSummary> {
    await stillVersion(this.env.FEEDS, params.key, params.etag);
    const shards = shardDatabasesOf(this.env);
    const { summary } = checkpoint;
    const states = new Map(Object.entries(checkpoint.states ?? {}));
    await recordShardedLoad(shards, `load ${params.key}`, summary.inserted + summary.updated, now, states);
    // Read to its end: the backfills the load made are complete, and the states' next loads are announced.
    await new Backfills(shards, `load ${params.key}`, now, checkpoint.backfills ?? {}).complete(new Date());
    if (await this.stillThisVersion(params)) await joinProblems(this.env.FEEDS, id, params.key, false);
    // The aggregates' counts are saved beside the checkpoint (saveProgress): kept, so a follower that read
    // none of them while the steps ran still says how many debtors were rebuilt.
    const db = shardDb(shards);
    const { refreshing } = (await readLoad(db, id))?.checkpoint ?? {};
    await saveCheckpoint(db, id, { ...checkpoint, ...(refreshing ? { refreshing } : {}), finished: true }, new Date());
    return summary;
  }

  /** Empties part of the load's staging (staging.ts); returns whether any is left. */
  private async clearStaging(id: string): Promise<boolean> {
    return clearStaging(shardDb(shardDatabasesOf(this.env)), id);
  }
}

/** What a feed file's `backfill` metadata declares (the CLI's `--backfill`, `--force`). */
function declaredBy(value: string | undefined): Declared {
  if (value === "yes") return { backfill: true, force: false };
  if (value === "force") return { backfill: true, force: true };
  return undefined;
}
