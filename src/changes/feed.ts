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
 * `limit` + 1 changes (the change rows alone), merged; then, from each
 * shard that has changes on the merged page, exactly those changes'
 * filings, by id. Each shard reads its filings for what the page shows, not
 * a page of its own to be cut by the merge, and no change twice: the shard
 * that holds the whole page reads its 101 changes and 100 filings. One
 * shard (a state asked for, or one database), or a party filter, whose
 * page examines a window of changes, is one round trip: the shard's page
 * whole.
 */
import type { ShardReader } from "../queries/db.ts";
import {
  type ChangeFilter,
  type ChangeHead,
  type ChangeItem,
  type ChangeKey,
  partOf,
  type ShardChanges,
  type Start,
  scans,
  shardChangeFilings,
  shardChangeHeads,
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
  part: ShardChanges<ChangeHead | ChangeItem>;
}

/**
 * The first round trip of a page: each of the shards `read` (bindings, in
 * layout order: `all`), from its start. Changes come whole from one shard
 * or with a party filter, else without their filings (see above).
 */
export async function readParts(
  reader: ShardReader,
  read: readonly string[],
  filter: ChangeFilter,
  startAt: (shard: string) => Start,
  limit: number,
): Promise<Part[]> {
  const whole = read.length === 1 || scans(filter);
  const parts = await reader.read(read, (db, shard): Promise<ShardChanges<ChangeHead | ChangeItem>> => {
    return whole
      ? shardChanges(db, filter, startAt(shard), limit)
      : shardChangeHeads(db, filter, startAt(shard), limit);
  });
  return parts.map((part, i) => {
    const shard = read[i] ?? "";
    return { shard, index: reader.shards.indexOf(shard), part };
  });
}

const isItem = (change: ChangeHead | ChangeItem): change is ChangeItem => "filing" in change;

/**
 * The page of `limit` changes merged from `parts` (readParts), and the
 * positions after it, starting from `positions` (of every shard); the
 * filings of the changes read without them are read now, from their shards
 * (the second round trip), exactly those the page holds.
 */
export async function feedPage(
  reader: ShardReader,
  parts: Part[],
  positions: Positions,
  limit: number,
): Promise<FeedPage> {
  const merged = mergePage(parts, positions, limit);
  // Each shard's changes on the page that came without their filings.
  const wanted = new Map<string, ChangeHead[]>();
  for (const { shard, item } of merged.page) {
    if (isItem(item)) continue;
    const heads = wanted.get(shard);
    if (heads) heads.push(item);
    else wanted.set(shard, [item]);
  }
  const read = [...wanted.keys()];
  const filed = await reader.read(read, (db, shard) => shardChangeFilings(db, wanted.get(shard) ?? []));
  const fetched = new Map(read.map((shard, i) => [shard, new Map((filed[i] ?? []).map((c) => [c.seq, c]))]));
  const changes = merged.page.flatMap(({ shard, item }) => {
    const found = isItem(item) ? item : fetched.get(shard)?.get(item.seq);
    if (!found) return [];
    const part = partOf(found.state, shard, reader.partsOf);
    return [part === undefined ? found : { ...found, part }];
  });
  return { changes, next: merged.next, hasMore: merged.hasMore, dataLoadedAt: merged.dataLoadedAt };
}

/**
 * The merge of `parts` (in layout order, each with its index in the
 * layout) into a page of `limit`: which changes (whole, or without their
 * filings), and every shard's position after it, from `positions`.
 */
function mergePage(parts: Part[], positions: Positions, limit: number) {
  const all = parts.flatMap(({ shard, index, part }) => part.items.map((item) => ({ shard, index, item })));
  all.sort((a, b) => compare(a.item.recordedAt, b.item.recordedAt) || a.index - b.index || a.item.seq - b.item.seq);
  const page = all.slice(0, limit);
  const next: Positions = { ...positions };
  let hasMore = false;
  for (const { shard, part } of parts) {
    const seqs = page.filter((p) => p.shard === shard).map((p) => p.item.seq);
    const last = seqs.at(-1) ?? part.start;
    if (seqs.length < part.items.length) {
      // Some of its changes did not fit: resume right after the last shown.
      next[shard] = last;
      hasMore = true;
    } else if (part.examined) {
      // Every match shown; what was examined without matching is passed too.
      next[shard] = Math.max(last, part.examined.through ?? part.start);
      hasMore ||= part.examined.full;
    } else {
      next[shard] = last;
      hasMore ||= part.more === true;
    }
  }
  return { page, next, hasMore, dataLoadedAt: newest(parts.map((p) => p.part.dataLoadedAt)) };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function newest(times: (string | null)[]): string | null {
  return times.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);
}
