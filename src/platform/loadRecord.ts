/**
 * The load record of a platform load in D1 (schema.ts, feed_loads, in the
 * default shard): what the CLI reads to follow a load and to list loads,
 * and what a restarted load resumes from. Each range step saves its
 * checkpoint here after its writes, so the record never claims more than
 * is committed; between checkpoints the steps save their progress (what
 * their groups committed so far) for the CLI to show. Whether the load runs, completed or failed, and why, is
 * its Workflow instance's status (scripts/platformLoad.ts asks it), not
 * the record's.
 */
import { desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/database.ts";
import { feedLoads } from "../db/schema.ts";
import { isoSeconds } from "../domain/time.ts";
import { emptySummary, type ImportSummary } from "../feed/import.ts";
import type { Resume } from "../feed/read.ts";

/** Where a load stands after a step: the next range's start (null once the file is read), counts so far. */
export interface Checkpoint {
  next: Resume | null;
  /** Bytes of the file read and written. */
  done: number;
  summary: ImportSummary;
  ranges: number;
  /** The states the ranges loaded, each with the newest as-of date the file gave (GET /states' currency). */
  states?: Record<string, string | null>;
  /** The first reading of the file, by the scan steps (staging.ts): where it got to, and the states it met. */
  scan?: { next: Resume | null; read: number; states: string[] };
  /**
   * Whether the load backfills each state of the file (src/feed/backfills.ts),
   * decided once, after the scan and before any write.
   */
  backfills?: Record<string, boolean>;
  /** Set by the load's finish step: a restart of a finished load ends at once. */
  finished?: boolean;
  /**
   * The range under way, as far as its groups have committed: the byte it
   * began at (its checkpoint's `next`) and the bytes it has read. Saved
   * every few seconds (saveProgress) so that a follower's progress moves
   * within a range; a restart resumes from `next` and ignores it.
   */
  writing?: { from: number; done: number };
  /** The aggregates steps: debtors queued when they began, and how many are left. */
  refreshing?: { queued: number; left: number };
}

export interface LoadRecord {
  id: string;
  key: string;
  etag: string;
  bytes: number;
  startedAt: string;
  updatedAt: string;
  /** Counts so far: the checkpoint's, plus what a range that stopped on a broken file had written. */
  summary: ImportSummary;
  checkpoint: Checkpoint;
}

const firstCheckpoint = (): Checkpoint => ({
  next: { byte: 0, line: 1 },
  done: 0,
  summary: emptySummary(),
  ranges: 0,
});

function recordOf(row: typeof feedLoads.$inferSelect): LoadRecord {
  return {
    ...row,
    summary: { ...emptySummary(), ...(JSON.parse(row.summary) as Partial<ImportSummary>) },
    checkpoint: JSON.parse(row.checkpoint) as Checkpoint,
  };
}

export async function readLoad(db: Db, id: string): Promise<LoadRecord | undefined> {
  const [row] = await db.select().from(feedLoads).where(eq(feedLoads.id, id));
  return row && recordOf(row);
}

/** The newest loads first. */
export async function recentLoads(db: Db, limit: number): Promise<LoadRecord[]> {
  const rows = await db.select().from(feedLoads).orderBy(desc(feedLoads.startedAt), desc(feedLoads.id)).limit(limit);
  return rows.map(recordOf);
}

/**
 * The record of load `id`, begun now or earlier: a new one at the file's
 * start, or the one an earlier run left (a restart carries on from its
 * checkpoint).
 */
export async function beginLoad(
  db: Db,
  file: { id: string; key: string; etag: string; bytes: number },
  at: Date,
): Promise<LoadRecord> {
  const now = isoSeconds(at);
  const first = firstCheckpoint();
  await db
    .insert(feedLoads)
    .values({
      ...file,
      startedAt: now,
      updatedAt: now,
      summary: JSON.stringify(first.summary),
      checkpoint: JSON.stringify(first),
    })
    .onConflictDoNothing();
  const record = await readLoad(db, file.id);
  if (!record) throw new Error(`load ${file.id} has no record`);
  return record;
}

/** Saves a step's checkpoint (after its writes), and its counts as the load's. */
export async function saveCheckpoint(db: Db, id: string, checkpoint: Checkpoint, at: Date): Promise<void> {
  await db
    .update(feedLoads)
    .set({
      summary: JSON.stringify(checkpoint.summary),
      checkpoint: JSON.stringify(checkpoint),
      updatedAt: isoSeconds(at),
    })
    .where(eq(feedLoads.id, id));
}

/**
 * Saves counts past the checkpoint, which stays where it is: what a range
 * that stopped on a broken file wrote before the break.
 */
export async function saveSummary(db: Db, id: string, summary: ImportSummary, at: Date): Promise<void> {
  await db
    .update(feedLoads)
    .set({ summary: JSON.stringify(summary), updatedAt: isoSeconds(at) })
    .where(eq(feedLoads.id, id));
}

/**
 * Saves how far a step under way has got (its checkpoint's `writing` or
 * `refreshing`) beside the checkpoint, which stays where it is, and the
 * counts committed so far, when given. Only followers read it.
 */
export async function saveProgress<K extends "writing" | "refreshing">(
  db: Db,
  id: string,
  field: K,
  value: NonNullable<Checkpoint[K]>,
  summary?: ImportSummary,
): Promise<void> {
  await db
    .update(feedLoads)
    .set({
      checkpoint: sql`json_set(${feedLoads.checkpoint}, ${`$.${field}`}, json(${JSON.stringify(value)}))`,
      ...(summary ? { summary: JSON.stringify(summary) } : {}),
    })
    .where(eq(feedLoads.id, id));
}
