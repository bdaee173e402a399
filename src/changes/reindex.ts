/**
 * Rewrites the change feed's name index (schema.ts, changeNames) of every
 * change kept, from the parties its filing names now and those the change
 * took off it (changes.removed_parties): once after the
 * migration that made the index, for the changes recorded before it, and
 * after the name rules change (`npm run db:rekey` runs it after re-keying
 * the parties, docs/deploying.md). A page of changes at a time, each in one
 * batch that replaces the page's rows, so running it again, or after a run
 * cut short, writes the same index.
 */
import { gt, sql } from "drizzle-orm";
import { readRemoved } from "../db/changeRows.ts";
import type { Db } from "../db/database.ts";
import { changeKeys, NAME_SLOTS, storedKeys } from "../db/nameIndex.ts";
import { changeNames, changes } from "../db/schema.ts";

/** Changes read and re-indexed per batch. */
const PAGE = 500;

/** Re-indexes every change kept; returns how many. */
export async function reindexChanges(db: Db, onPage?: (done: number) => void): Promise<number> {
  let after = 0;
  let done = 0;
  for (;;) {
    const page = await db
      .select({ seq: changes.seq, filingId: changes.filingId, removed: changes.removedParties })
      .from(changes)
      .where(gt(changes.seq, after))
      .orderBy(changes.seq)
      .limit(PAGE);
    const first = page[0];
    const last = page.at(-1);
    if (!first || !last) return done;
    const keys = await storedKeys(db, [...new Set(page.map((c) => c.filingId))]);
    const keysOf = (c: (typeof page)[number]) => {
      const own = keys.get(c.filingId) ?? [];
      if (c.removed === null) return own;
      const { debtorKeys, lenderWords } = readRemoved(c.removed);
      return [...new Set([...own, ...changeKeys(debtorKeys, lenderWords)])].slice(0, NAME_SLOTS);
    };
    const rows = page.flatMap((c) => keysOf(c).map((key, slot) => [c.seq * NAME_SLOTS + slot, key]));
    await db.batch([
      db
        .delete(changeNames)
        .where(
          sql`${changeNames.id} >= ${first.seq * NAME_SLOTS} and ${changeNames.id} < ${(last.seq + 1) * NAME_SLOTS}`,
        ),
      db
        .insert(changeNames)
        .select(
          sql`select json_extract(value, '$[0]'), json_extract(value, '$[1]') from json_each(${JSON.stringify(rows)})`,
        ),
    ]);
    after = last.seq;
    done += page.length;
    onPage?.(done);
  }
}
