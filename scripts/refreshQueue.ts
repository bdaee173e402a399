/**
 * The last phase of a local load (an import's delta, a source's load):
 * rebuilding the aggregates of the debtors its writes queued, in every
 * shard, a part of the queue at a time so that its progress moves.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../src/db/database.ts";
import { refreshQueued } from "../src/db/load.ts";
import { debtorsToRefresh } from "../src/db/schema.ts";
import type { ShardDatabases } from "../src/db/shards.ts";
import { number } from "./importOutput.ts";
import type { Progress } from "./progress.ts";

async function queued(db: Db): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(debtorsToRefresh);
  return Number(row?.n ?? 0);
}

/**
 * Refreshes every shard's queue, `part` debtors at a time (the parts of
 * one refreshQueued call are these: the same rows either way), as the
 * phase `name` of `progress`.
 */
export async function refreshWithProgress(
  shards: ShardDatabases,
  progress: Progress,
  { part, name = "rebuilding the aggregates of the debtors loaded" }: { part: number; name?: string },
): Promise<void> {
  const queues = new Map<Db, number>();
  for (const db of shards.databases.values()) queues.set(db, await queued(db));
  const total = [...queues.values()].reduce((a, b) => a + b, 0);
  progress.phase(name, total);
  let done = 0;
  for (const [db, before] of queues) {
    let left = before;
    for (let more = true; more; ) {
      more = await refreshQueued(db, { limit: part });
      // Counted, not assumed: another load running meanwhile may queue debtors too.
      const now = more ? await queued(db) : 0;
      done = Math.min(total, done + Math.max(0, left - now));
      left = now;
      progress.update(done, `${number(done)} of ${number(total)} debtors`);
    }
  }
  progress.end(`${number(total)} debtors`);
}
