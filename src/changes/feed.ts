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
 */
import type { ChangeItem, ShardChanges } from "./read.ts";

/** Each shard's position (by binding): the last change the client has seen there. */
export type Positions = Record<string, number>;

export interface FeedPage {
  changes: ChangeItem[];
  /** Every shard's position after this page (shards not read keep theirs). */
  next: Positions;
  hasMore: boolean;
  dataLoadedAt: string | null;
}

/**
 * The page of `limit` changes merged from `parts` (the shards read, in
 * layout order, each with its index in the layout), and the positions
 * after it, starting from `positions` (of every shard).
 */
export function mergePage(
  parts: { shard: string; index: number; part: ShardChanges }[],
  positions: Positions,
  limit: number,
): FeedPage {
  const all = parts.flatMap(({ shard, index, part }) => part.items.map((item) => ({ shard, index, item })));
  all.sort((a, b) => compare(a.item.recordedAt, b.item.recordedAt) || a.index - b.index || a.item.seq - b.item.seq);
  const page = all.slice(0, limit);
  const next: Positions = { ...positions };
  let hasMore = false;
  for (const { shard, part } of parts) {
    const shown = page.filter((p) => p.shard === shard).map((p) => p.item.seq);
    const last = shown.at(-1) ?? part.start;
    if (shown.length < part.items.length) {
      // Some of its changes did not fit: resume right after the last shown.
      next[shard] = last;
      hasMore = true;
    } else if (part.examined) {
      // Every match shown; what was examined without matching is passed too.
      next[shard] = Math.max(last, part.examined.through ?? part.start);
      hasMore ||= part.examined.full;
    } else next[shard] = last;
  }
  return {
    changes: page.map((p) => p.item),
    next,
    hasMore,
    dataLoadedAt: newest(parts.map((p) => p.part.dataLoadedAt)),
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function newest(times: (string | null)[]): string | null {
  return times.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);
}
