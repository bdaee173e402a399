/**
 * The change feed across shards (docs/monitoring.md): each shard's part
 * (read.ts) merged into one page, and the position each shard has reached,
 * which the client's cursor carries.
 *
 * Order: each shard's changes in seq order (commit order, so per state
 * too); across shards, by recorded_at, then by the shard's place in the
 * layout, then by seq. A shard's position moves only past changes the page
 * holds (or, with a party filter, examined and found not to match),
 * never past one it left out: a change is never skipped, whatever commits
 * on other shards between two polls. A read replica behind the position
 * returns fewer changes, never lets it move back.
 *
 * A page of several shards is read in two round trips: each shard's next
 * `limit` + 1 keys (seq and time, the change rows alone), merged; then,
 * from each shard that has changes on the merged page, exactly those
 * changes with their filings. Each shard reads its filings for what the
 * page shows, not a page of its own to be cut by the merge. One shard (a
 * state asked for, or one database), or a party filter, whose page
 * examines a window of changes, is one round trip: the shard's page whole.
 */
import type { ShardReader } from "../queries/db.ts";
import {
  type ChangeFilter,
  type ChangeItem,
  type ChangeKey,
  type ShardChanges,
  type Start,
  scans,
  shardChangeKeys,
  shardChangePage,
  shardChanges,
} from "./read.ts";

/** Each shard's position (by binding): the last change the client has seen there. */
export type Positions = Record<string, number>;

export interface FeedPage<T extends ChangeKey = ChangeItem> {
  changes: T[];
  /** Every shard's position after this page (shards not read keep theirs). */
  next: Positions;
  hasMore: boolean;
  dataLoadedAt: string | null;
}

/** A shard's part of a page: its binding, its index in the layout, and what it read. */
export interface Part {
  shard: string;
  index: number;
  part: ShardChanges<ChangeKey>;
}

/**
 * The first round trip of a page: each of the shards `read` (bindings, in
 * layout order: `all`), from its start. Changes come whole from one shard
 * or with a party filter, else as keys (see above).
 */
export async function readParts(
  reader: ShardReader,
  read: readonly string[],
  filter: ChangeFilter,
  startAt: (shard: string) => Start,
  limit: number,
): Promise<Part[]> {
  const whole = read.length === 1 || scans(filter);
  const parts = await reader.read(read, (db, shard): Promise<ShardChanges<ChangeKey>> => {
    return whole ? shardChanges(db, filter, startAt(shard), limit) : shardChangeKeys(db, filter, startAt(shard), limit);
  });
  return parts.map((part, i) => {
    const shard = read[i] ?? "";
    return { shard, index: reader.shards.indexOf(shard), part };
  });
}

const isItem = (key: ChangeKey): key is ChangeItem => "filing" in key;

/**
 * The page of `limit` changes merged from `parts` (readParts), and the
 * positions after it, starting from `positions` (of every shard); the
 * changes of parts read as keys are read now, from their shards (the
 * second round trip), exactly those the page holds.
 */
export async function feedPage(
  reader: ShardReader,
  parts: Part[],
  positions: Positions,
  limit: number,
  filter: ChangeFilter,
): Promise<FeedPage> {
  const merged = mergePage(parts, positions, limit);
  const wanted = new Map<string, { after: number; count: number }>();
  for (const { shard, part } of parts) {
    const count = merged.shown.get(shard) ?? 0;
    if (count > 0 && !part.items.every(isItem)) wanted.set(shard, { after: part.start, count });
  }
  const read = [...wanted.keys()];
  const pages = await reader.read(read, (db, shard) => {
    const { after, count } = wanted.get(shard) ?? { after: 0, count: 0 };
    return shardChangePage(db, filter, after, count);
  });
  const fetched = new Map(read.map((shard, i) => [shard, new Map((pages[i] ?? []).map((c) => [c.seq, c]))]));
  const changes = merged.page.flatMap(({ shard, item }) => {
    if (isItem(item)) return [item];
    // A change of the keys is there still (changes are never deleted but by retention, oldest first).
    const found = fetched.get(shard)?.get(item.seq);
    return found ? [found] : [];
  });
  return { changes, next: merged.next, hasMore: merged.hasMore, dataLoadedAt: merged.dataLoadedAt };
}

/**
 * The merge of `parts` (in layout order, each with its index in the
 * layout) into a page of `limit`: which changes (or keys), how many of
 * each shard, and every shard's position after it, from `positions`.
 */
function mergePage(parts: Part[], positions: Positions, limit: number) {
  const all = parts.flatMap(({ shard, index, part }) => part.items.map((item) => ({ shard, index, item })));
  all.sort((a, b) => compare(a.item.recordedAt, b.item.recordedAt) || a.index - b.index || a.item.seq - b.item.seq);
  const page = all.slice(0, limit);
  const next: Positions = { ...positions };
  const shown = new Map<string, number>();
  let hasMore = false;
  for (const { shard, part } of parts) {
    const seqs = page.filter((p) => p.shard === shard).map((p) => p.item.seq);
    shown.set(shard, seqs.length);
    const last = seqs.at(-1) ?? part.start;
    if (seqs.length < part.items.length) {
      // Some of its changes did not fit: resume right after the last shown.
      next[shard] = last;
      hasMore = true;
    } else if (part.examined) {
      // Every match shown; what was examined without matching is passed too.
      next[shard] = Math.max(last, part.examined.through ?? part.start);
      hasMore ||= part.examined.full;
    } else next[shard] = last;
  }
  return { page, shown, next, hasMore, dataLoadedAt: newest(parts.map((p) => p.part.dataLoadedAt)) };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function newest(times: (string | null)[]): string | null {
  return times.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);
}
