/**
 * The LoadFeed Workflow: one instance loads one version of a feed file from
 * the feeds bucket (its id from the key and etag: feedFiles.ts), next to
 * the data, in steps that each do a bounded part and return a small
 * checkpoint:
 *
 * 1. `begin`: checks the file is still that version, and opens (or finds)
 *    its load record in D1 (loadRecord.ts). A load restarted after failing
 *    for good resumes from the record's last checkpoint; a complete one
 *    ends at once.
 * 2. `range N`: reads the file from the checkpoint's resume point to the
 *    first record boundary at or past RANGE_BYTES further (or MAX_RECORDS
 *    records), an R2 range read on the condition that the etag still
 *    matches, through the CLI's readers and loader (importShardedRange):
 *    each filing to its state's shard, in D1 batches within D1's limits.
 *    A record that straddles the range's end is read whole by this range.
 *    A first reading of the range finds the filings it gives more than once
 *    (feed/repeats.ts), so each is compared with what is stored in its last
 *    copy only; copies in different ranges are loaded in turn.
 *    It puts its rejects and warnings beside the file, saves its
 *    checkpoint in the load record, and returns it. A retried range, or one
 *    run again after a restart, rewrites nothing it committed: the loader
 *    compares each filing with what is stored (upsertFilings).
 * 3. `aggregates N`: rebuilds the aggregates of the debtors the load queued,
 *    a bounded number per batch, as the CLI does once after its load.
 * 4. `finish`: records the load in every shard (data_loads, what
 *    `data_source_last_updated` reads; state_loads, each state's currency
 *    for GET /states), joins the rejects and warnings, and
 *    marks the record complete; its summary is the instance's output.
 *
 * A step that keeps failing, or a file that is not well-formed, fails the
 * load: what it committed stays (each filing written whole) and gets its
 * aggregates, its record says why, and restarting the instance (or
 * importing the file again) finishes it from the last checkpoint.
 */
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from "cloudflare:workers";
import { NonRetryableError } from "cloudflare:workflows";
import { drizzle } from "drizzle-orm/d1";
import { z } from "zod";
import { type LoadedStates, refreshQueued } from "../db/load.ts";
import * as schema from "../db/schema.ts";
import { shardsOf } from "../db/shards.ts";
import { emptySummary, type ImportRange, type ImportSummary, laterAsOf, sumOf, writtenBefore } from "../feed/import.ts";
import { FeedFileError, readFeed } from "../feed/read.ts";
import { findRepeats } from "../feed/repeats.ts";
import {
  emptyShards,
  importShardedRange,
  recordShardedLoad,
  type ShardDatabases,
  shardDb,
} from "../feed/shardedImport.ts";
import { nudgeDispatcher } from "../webhooks/worker.ts";
import { bareEtag, stateOfKey } from "./feedFiles.ts";
import { beginLoad, type Checkpoint, endLoad, saveCheckpoint, saveSummary } from "./loadRecord.ts";
import { joinProblems, RangeProblems } from "./problems.ts";

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

const loadParams = z.object({
  key: z.string().min(1),
  etag: z.string().min(1),
  size: z.number().int().nonnegative(),
  /** Bytes per range step: RANGE_BYTES unless given (tests and benchmarks use smaller ranges). */
  rangeBytes: z.number().int().positive().optional(),
});

export type LoadParams = z.infer<typeof loadParams>;

/** Ranges retry on their own: a D1 or R2 hiccup costs the range, never the load. */
const RANGE_STEP: WorkflowStepConfig = { retries: { limit: 5, delay: "5 seconds", backoff: "exponential" } };

/** The drizzle handle of every shard of the Worker's layout. */
function shardDatabasesOf(env: Env): ShardDatabases {
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

/** The file from byte `offset` on, if it is still the version with `etag`. */
async function bytesFrom(bucket: R2Bucket, key: string, etag: string, offset: number) {
  const object = await bucket.get(key, { range: { offset }, onlyIf: { etagMatches: etag } });
  if (object === null) throw new NonRetryableError(`${key} is no longer in the bucket`);
  // The file was replaced while this version loaded: stop rather than read bytes of two versions.
  if (!("body" in object)) throw new NonRetryableError(`${key} was replaced during its load (etag ${etag} is gone)`);
  return object.body;
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
      for (let n = 1; checkpoint.next !== null; n++) {
        const from = checkpoint;
        checkpoint = await step.do(`range ${n}`, RANGE_STEP, () => this.range(id, params, from, now));
      }
      await this.refreshAggregates(step, "aggregates");
      const done = checkpoint;
      return await step.do("finish", () => this.finish(id, params, done, now));
    } catch (err) {
      // A step's NonRetryableError reaches run() as "NonRetryableError: reason".
      const reason = (err instanceof Error ? err.message : String(err)).replace(/^NonRetryableError:?\s*/, "");
      // What the load committed gets its aggregates, as the CLI's does after
      // a failure; if D1 is what failed, the next load's refresh does it.
      await this.refreshAggregates(step, "aggregates after the failure").catch(() => {});
      await step.do("record the failure", async () => {
        const db = shardDb(shardDatabasesOf(this.env));
        // A load that failed before its record was made (its file gone or replaced) gets one, saying why.
        const file = { id, key: params.key, etag: bareEtag(params.etag), bytes: params.size };
        await beginLoad(db, file, now);
        await endLoad(db, id, { status: "failed", error: reason }, new Date());
        // Webhooks: what the load committed before failing is matched too.
        await nudgeDispatcher(this.env.WEBHOOK_DISPATCH, `load ${params.key}`);
        if (await this.stillThisVersion(params)) await joinProblems(this.env.FEEDS, id, params.key, true);
      });
      // Handled: the instance errors with the reason (a NonRetryableError
      // escaping run() would end it with a generic message instead).
      throw new Error(reason);
    }
  }

  private async begin(id: string, params: LoadParams, now: Date) {
    const head = await this.env.FEEDS.head(params.key);
    if (!head) throw new NonRetryableError(`${params.key} is not in the bucket`);
    if (head.etag !== bareEtag(params.etag)) {
      throw new NonRetryableError(`${params.key} was replaced before its load began (etag ${params.etag} is gone)`);
    }
    const shards = shardDatabasesOf(this.env);
    const record = await beginLoad(shardDb(shards), { id, key: params.key, etag: head.etag, bytes: head.size }, now);
    let checkpoint = record.checkpoint;
    if (checkpoint.backfilling === undefined) {
      // Decided once, as the load begins, and kept: a retried or restarted
      // range must not start recording changes because earlier ranges filled
      // the shard. The CLI's first load into a shard records none either.
      checkpoint = { ...checkpoint, backfilling: await emptyShards(shards) };
      await saveCheckpoint(shardDb(shards), id, checkpoint, now);
    }
    return { complete: record.status === "complete", checkpoint };
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
    // A filing the range gives more than once is compared with what is
    // stored in its last copy only (feed/repeats.ts, a first reading of the
    // range): a retried range then records no flip between its copies.
    // One R2 read, teed: the load's branch holds what the first reading has
    // passed, at most the range.
    const [first, body] = source.tee();
    const repeats = await findRepeats(
      readFeed(params.key, first, { now, ...(defaultState ? { defaultState } : {}), ...range }),
    );
    let loaded: LoadedStates = new Map();
    try {
      const { summary, next } = await importShardedRange(shards, params.key, body, range, {
        now,
        ...(repeats.size > 0 ? { repeats } : {}),
        backfilling: new Set(from.backfilling ?? []),
        source: `load ${params.key}`,
        ...(defaultState ? { defaultState } : {}),
        // The aggregates are rebuilt once, by the aggregates steps.
        deferRefresh: true,
        // Recorded once, by the finish step, with the states every range loaded.
        recordLoad: async (_source, _filings, _at, states) => {
          loaded = states;
        },
        onReject: problems.reject,
        onWarning: problems.warn,
      });
      await problems.save(this.env.FEEDS, id, start.byte);
      const checkpoint: Checkpoint = {
        next,
        done: next?.byte ?? params.size,
        summary: sumOf(from.summary, summary),
        ranges: from.ranges + 1,
        states: mergeStates(from.states ?? {}, loaded),
        ...(from.backfilling ? { backfilling: from.backfilling } : {}),
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
      const written = writtenBefore(err) ?? emptySummary();
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
   * Whether the file is still the version this load read. The rejects and
   * warnings beside it are its current version's: a load of a version
   * replaced since leaves them alone (its parts stay under loads/ID/).
   */
  private async stillThisVersion(params: LoadParams): Promise<boolean> {
    return (await this.env.FEEDS.head(params.key))?.etag === bareEtag(params.etag);
  }

  /** Steps `name 1`, `name 2`, ... until every shard's queue of debtors is empty. */
  private async refreshAggregates(step: WorkflowStep, name: string): Promise<void> {
    for (let n = 1, more = true; more; n++) more = await step.do(`${name} ${n}`, () => this.aggregates());
  }

  /** Refreshes a bounded part of every shard's queue of debtors; returns whether any is left. */
  private async aggregates(): Promise<boolean> {
    let more = false;
    for (const db of shardDatabasesOf(this.env).databases.values()) {
      let left = true;
      for (let i = 0; i < REFRESH_BATCHES && left; i++) left = await refreshQueued(db, { limit: REFRESH_DEBTORS });
      more ||= left;
    }
    return more;
  }

  private async finish(id: string, params: LoadParams, checkpoint: Checkpoint, now: Date): Promise<ImportSummary> {
    const shards = shardDatabasesOf(this.env);
    const { summary } = checkpoint;
    const states = new Map(Object.entries(checkpoint.states ?? {}));
    await recordShardedLoad(shards, `load ${params.key}`, summary.inserted + summary.updated, now, states);
    if (await this.stillThisVersion(params)) await joinProblems(this.env.FEEDS, id, params.key, false);
    await endLoad(shardDb(shards), id, { status: "complete", summary }, new Date());
    return summary;
  }
}
