/**
 * What a platform load keeps in D1 between its steps besides its record
 * (loadRecord.ts), so that ranges of one file load as the CLI loads the
 * whole file (src/feed/repeats.ts, held.ts):
 *
 * - load_keys: the first reading (the `scan` steps) records each filing
 *   key the file gives, as a hash, with the read positions of its first
 *   and last copy. A range step asks it which of its own filings are
 *   repeated and where their last copy is, and which filings it left
 *   amendments waiting for a later range brings (those are not counted as
 *   waiting, as the CLI's later group applies them).
 * - held_copies: the earlier copies of a repeated filing, until the range
 *   that reads its last copy folds them into it.
 *
 * Both live in the default shard and are emptied when the load completes,
 * or fails with its file version gone (no restart could finish it), 20,000
 * rows a statement. They cost a row per filing of the file
 * (about 60 bytes) while it loads: a 4-million-filing backfill holds about
 * 250 MB of them for its duration. Every write is an upsert, so a step run
 * again writes nothing twice; a copy is read, not deleted, by the range
 * that folds it, so a range run again folds it again.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/database.ts";
import { heldCopies, loadKeys } from "../db/schema.ts";
import type { HeldCopies, HeldCopy } from "../feed/held.ts";
import type { Repeats } from "../feed/repeats.ts";

/** Entries sent in one statement's JSON parameter (D1 takes up to 2 MB a value). */
const PER_STATEMENT = 5_000;
/** Rows deleted per statement when a load's staging is emptied. */
const DELETE_ROWS = 20_000;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Records the keys of a scan step: each `[hash, position]` read. */
export async function recordKeys(db: Db, load: string, keys: [string, number][]): Promise<void> {
  // One statement at a time: Drizzle's D1 batch cannot bind the values of a raw statement.
  for (const part of chunks(keys, PER_STATEMENT)) {
    await db.run(sql`insert into ${loadKeys} (load, hash, first, last)
      select ${load}, value ->> 0, value ->> 1, value ->> 1 from json_each(${JSON.stringify(part)}) where true
      on conflict (load, hash) do update set first = min(first, excluded.first), last = max(last, excluded.last)`);
  }
}

/** Of `hashes` (a range's), those the file gives more than once, with the read position of their last copy. */
export async function repeatsOf(db: Db, load: string, hashes: string[]): Promise<Repeats> {
  const repeats = new Map<string, number>();
  for (const part of chunks([...new Set(hashes)], PER_STATEMENT)) {
    const rows = await db
      .select({ hash: loadKeys.hash, last: loadKeys.last })
      .from(loadKeys)
      .where(
        and(
          eq(loadKeys.load, load),
          sql`${loadKeys.hash} in (select value from json_each(${JSON.stringify(part)}))`,
          sql`${loadKeys.first} < ${loadKeys.last}`,
        ),
      );
    for (const r of rows) repeats.set(r.hash, r.last);
  }
  return repeats;
}

/**
 * Of `hashes` (filings a range left amendments waiting for), those the file
 * gives at read position `from` or later: a later range brings them.
 */
export async function givenFrom(db: Db, load: string, hashes: string[], from: number): Promise<Set<string>> {
  const later = new Set<string>();
  for (const part of chunks([...new Set(hashes)], PER_STATEMENT)) {
    const rows = await db
      .select({ hash: loadKeys.hash })
      .from(loadKeys)
      .where(
        and(
          eq(loadKeys.load, load),
          sql`${loadKeys.hash} in (select value from json_each(${JSON.stringify(part)}))`,
          sql`${loadKeys.last} >= ${from}`,
        ),
      );
    for (const r of rows) later.add(r.hash);
  }
  return later;
}

/** Held copies in D1 (see above): held as they are read, written before the range's writes. */
export class HeldInD1 implements HeldCopies {
  private readonly db: Db;
  private readonly load: string;
  private buffered: [string, number, string][] = [];

  constructor(db: Db, load: string) {
    this.db = db;
    this.load = load;
  }

  hold(hash: string, copy: HeldCopy): void {
    this.buffered.push([hash, copy.position, JSON.stringify(copy)]);
  }

  /** Writes the copies held since the last write: before each group is written, so none is lost to a retry. */
  async flush(): Promise<void> {
    const rows = this.buffered;
    this.buffered = [];
    for (const part of chunks(rows, 200)) {
      await this.db.run(sql`insert into ${heldCopies} (load, hash, position, copy)
        select ${this.load}, value ->> 0, value ->> 1, value ->> 2 from json_each(${JSON.stringify(part)}) where true
        on conflict (load, hash, position) do nothing`);
    }
  }

  async take(hashes: string[]): Promise<Map<string, HeldCopy[]>> {
    await this.flush();
    const out = new Map<string, HeldCopy[]>();
    for (const part of chunks([...new Set(hashes)], PER_STATEMENT)) {
      const rows = await this.db
        .select({ hash: heldCopies.hash, copy: heldCopies.copy })
        .from(heldCopies)
        .where(
          and(
            eq(heldCopies.load, this.load),
            sql`${heldCopies.hash} in (select value from json_each(${JSON.stringify(part)}))`,
          ),
        )
        .orderBy(heldCopies.hash, heldCopies.position);
      for (const r of rows) out.set(r.hash, [...(out.get(r.hash) ?? []), JSON.parse(r.copy) as HeldCopy]);
    }
    return out;
  }

  /** None: the scan saw every copy, so each last copy is read by some range and folds its copies there. */
  async rest(): Promise<Map<string, HeldCopy[]>> {
    await this.flush();
    return new Map();
  }
}

/** Empties a load's staging, a bounded number of rows per statement; returns whether rows are left. */
export async function clearStaging(db: Db, load: string): Promise<boolean> {
  const keys = await db.run(
    sql`delete from ${loadKeys} where load = ${load} and hash in (select hash from ${loadKeys} where load = ${load} limit ${DELETE_ROWS})`,
  );
  const copies = await db.run(
    sql`delete from ${heldCopies} where load = ${load} and (hash, position) in (select hash, position from ${heldCopies} where load = ${load} limit ${DELETE_ROWS})`,
  );
  const changed = (r: unknown) => Number((r as { meta?: { changes?: number } }).meta?.changes ?? 0);
  return changed(keys) >= DELETE_ROWS || changed(copies) >= DELETE_ROWS;
}
