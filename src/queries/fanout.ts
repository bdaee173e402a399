/**
 * Cross-state lists over several shards (docs/sharding.md): every shard is
 * read at once, each bounded as one database's list is, and the parts are
 * merged in list order, so a page, its count and its paging are what one
 * database holding every shard's data would answer.
 *
 * - Filing lists (postal code, a filing number in any state): list order is
 *   (time, number) descending, as in one database; filings of different
 *   shards with the same time and number (two states' filings filed in the
 *   same second under the same number) follow shard order, where one
 *   database orders them by load order. Pages 1 and 2 take one round trip:
 *   each shard sends the first page * size rows of its list, whole. Deeper
 *   pages take two: each shard's first page * size list keys (index entries
 *   only), then the page's rows from the shards that hold them. Counts add
 *   the shards' totals: a filing lives in one shard.
 * - Known addresses: each shard's first rows in list order (a few per
 *   address the page can need) and its found debtors' address sets; an
 *   address used in several shards' states or under several found names is
 *   one entry, as most recently used, and counted once.
 * - Similar names: each shard's first names of every candidate probe; the
 *   first of all, per probe, are one database's candidates, then ranked.
 *
 * Rows read are each shard's bound, times the number of shards. With one
 * shard, each list is that database's own query, as before sharding.
 *
 * Each merge reads its shards through a ShardReader (src/queries/db.ts):
 * a request's (src/http/d1.ts), or plain handles (readerOf).
 */
import { type Db, onEveryShard, type ShardReader } from "./db.ts";
import * as debtorQueries from "./debtors.ts";
import {
  type CountedFilter,
  type FilingFilter,
  type FilingWithParties,
  fetchCountedPage,
  fetchListKeys,
  fetchOpenPage,
  type PageWindow,
} from "./filings.ts";
import { probeNames, type SimilarName, similarOf } from "./similar.ts";

/** Pages up to this one are read in one round trip, each shard sending its first page * size rows whole. */
const DIRECT_PAGES = 2;

interface Placed {
  at: string;
  num: string;
  /** Index of the shard in the layout, then the row's position in that shard's list. */
  shard: number;
  position: number;
}

/** List order across shards: newest first, then number, then shard and position. */
function listOrder(a: Placed, b: Placed): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  if (a.num !== b.num) return a.num < b.num ? 1 : -1;
  return a.shard - b.shard || a.position - b.position;
}

function placed(items: FilingWithParties[], shard: number, first: number, byTermination?: boolean) {
  return items.map((item, i) => ({
    item,
    at: (byTermination ? item.filing.terminatedAt : item.filing.filedAt) ?? "",
    num: item.filing.number,
    shard,
    position: first + i,
  }));
}

/** Rows `from` to `to` (exclusive) of the merge of the shards' parts. */
function mergedSlice<T extends Placed>(parts: T[][], from: number, to: number): T[] {
  return parts.flat().sort(listOrder).slice(from, to);
}

/** Items `from` to `to` of the merge of each shard's first rows (its list from the start). */
function mergedItems(parts: { items: FilingWithParties[] }[], from: number, to: number): FilingWithParties[] {
  return mergedSlice(
    parts.map((p, shard) => placed(p.items, shard, 0)),
    from,
    to,
  ).map((p) => p.item);
}

type Build = (db: Db) => FilingFilter;

/** The one result of a layout of one shard. */
function onlyOf<T>(results: T[]): T {
  const [only] = results;
  if (only === undefined || results.length !== 1) throw new Error("expected exactly one shard");
  return only;
}

/**
 * Where each shard's rows of the merged list's [from, to) lie in its own
 * list: shard index -> [offset, count]. `keys` are each shard's first rows.
 */
function partsOfSlice(keys: { at: string; num: string }[][], from: number, to: number): Map<number, [number, number]> {
  const slice = mergedSlice(
    keys.map((ks, shard) => ks.map((k, position) => ({ ...k, shard, position }))),
    from,
    to,
  );
  const parts = new Map<number, [number, number]>();
  for (const row of slice) {
    const part = parts.get(row.shard);
    if (part) part[1] += 1;
    else parts.set(row.shard, [row.position, 1]);
  }
  return parts;
}

/** A counted page (envelope A) of a cross-state filing list. */
export async function countedPageAcross(
  reader: ShardReader,
  build: (db: Db) => CountedFilter,
  { page, size }: PageWindow,
): Promise<{ items: FilingWithParties[]; total: number }> {
  const from = (page - 1) * size;
  const reach = page * size;
  if (reader.shards.length === 1) {
    // One database: its own page, as before sharding.
    return onlyOf(await onEveryShard(reader, (db) => fetchCountedPage(db, build(db), { page, size })));
  }
  if (page <= DIRECT_PAGES) {
    const parts = await onEveryShard(reader, (db) => fetchCountedPage(db, build(db), { page: 1, size: reach }));
    return {
      items: mergedItems(parts, from, reach),
      total: parts.reduce((sum, p) => sum + p.total, 0),
    };
  }
  const listed = await onEveryShard(reader, (db) => fetchListKeys(db, build(db), reach));
  const total = listed.reduce((sum, l) => sum + l.total, 0);
  const items = await pageRows(reader, listed, from, reach, (db, window) =>
    fetchCountedPage(db, { ...build(db), count: 0 }, window),
  );
  return { items, total };
}

/** An open page (envelope B: more or not, and the data-load time) of a cross-state filing list. */
export async function openPageAcross(
  reader: ShardReader,
  build: Build,
  { page, size }: PageWindow,
  options: { amendments: boolean },
): Promise<{ items: FilingWithParties[]; hasMore: boolean; dataLoadedAt: string | null }> {
  const from = (page - 1) * size;
  const reach = page * size;
  if (reader.shards.length === 1) {
    return onlyOf(await onEveryShard(reader, (db) => fetchOpenPage(db, build(db), { page, size }, options)));
  }
  if (page <= DIRECT_PAGES) {
    const parts = await onEveryShard(reader, (db) => fetchOpenPage(db, build(db), { page: 1, size: reach }, options));
    const rows = parts.reduce((sum, p) => sum + p.items.length, 0);
    return {
      items: mergedItems(parts, from, reach),
      hasMore: rows > reach || parts.some((p) => p.hasMore),
      dataLoadedAt: latest(parts.map((p) => p.dataLoadedAt)),
    };
  }
  // One row past the page, to tell whether another follows.
  const listed = await onEveryShard(reader, (db) => fetchListKeys(db, build(db), reach + 1));
  const items = await pageRows(reader, listed, from, reach, async (db, window) => {
    return (await fetchOpenPage(db, build(db), window, options)).items;
  });
  return {
    items,
    hasMore: listed.reduce((sum, l) => sum + l.keys.length, 0) > reach,
    dataLoadedAt: latest(listed.map((l) => l.dataLoadedAt)),
  };
}

/** The rows of the merged list's [from, to) from the shards that hold them (a second round trip). */
async function pageRows(
  reader: ShardReader,
  listed: { keys: { at: string; num: string }[] }[],
  from: number,
  to: number,
  fetch: (db: Db, window: PageWindow) => Promise<{ items: FilingWithParties[] } | FilingWithParties[]>,
): Promise<FilingWithParties[]> {
  const parts = partsOfSlice(
    listed.map((l) => l.keys),
    from,
    to,
  );
  if (parts.size === 0) return [];
  const all = reader.shards;
  // Each shard's binding name -> its index in the layout and its rows' window.
  const windows = new Map([...parts].map(([shard, window]) => [all[shard] ?? "", { shard, window }]));
  const fetched = await reader.read([...windows.keys()], async (db, name) => {
    const part = windows.get(name);
    if (!part) return [];
    const [offset, count] = part.window;
    const got = await fetch(db, { page: 1, size: count, offset });
    return placed(Array.isArray(got) ? got : got.items, part.shard, offset);
  });
  return mergedSlice(fetched, 0, to - from).map((p) => p.item);
}

function latest(times: (string | null)[]): string | null {
  return times.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);
}

/**
 * Known addresses of a debtor across every shard (one database is the same
 * with one shard): each address once, as most recently used under any found
 * name in any state, and counted once.
 *
 * Each shard sends its first ROWS_PER_ADDRESS * page * size rows in list
 * order and its found debtors' address sets, in one round trip. A shard's
 * newest `reach` distinct addresses hold every one of them the page can
 * show, and the rows before an address's newest row are rows of addresses
 * ahead of it. So when a shard's rows hold fewer than `reach` addresses and
 * were cut by the limit (an address under more found names than
 * ROWS_PER_ADDRESS, over many rows), that shard is read again, to `reach`
 * rows per found debtor: enough, since an address has at most one row per
 * debtor. The count is the union of the address sets.
 */
export async function knownAddressesAcross(reader: ShardReader, name: string, { page, size }: PageWindow) {
  const reach = page * size;
  const parts = await onEveryShard(reader, (db) =>
    debtorQueries.knownAddressCandidates(db, name, reach * debtorQueries.ROWS_PER_ADDRESS),
  );
  const all = reader.shards;
  const short = new Map(
    parts.flatMap((part, shard) =>
      part.rows.length === part.limit && distinctAddresses(part.rows) < reach ? [[all[shard] ?? "", part]] : [],
    ),
  );
  const again =
    short.size === 0
      ? []
      : await reader.read([...short.keys()], async (db, shard) => {
          // A batch of one, so the round trip and its rows are metered as every other.
          const [rows] = await db.batch([
            debtorQueries.knownAddressRows(db, name, reach * (short.get(shard)?.sets.length ?? 0)),
          ]);
          return rows;
        });
  const rows = [...parts.map((p) => p.rows), ...again]
    .flat()
    .sort(
      (a, b) =>
        compareDesc(a.lastUsed, b.lastUsed) ||
        compareDesc(a.addressKey, b.addressKey) ||
        compareDesc(a.nameKey, b.nameKey),
    );
  const newest = new Map<number, (typeof rows)[number]>();
  for (const row of rows) if (!newest.has(row.addressKey)) newest.set(row.addressKey, row);
  const total = new Set(parts.flatMap((p) => p.sets.flat())).size;
  return { rows: [...newest.values()].slice((page - 1) * size, reach), total };
}

function distinctAddresses(rows: { addressKey: number }[]): number {
  return new Set(rows.map((r) => r.addressKey)).size;
}

function compareDesc<T extends string | number>(a: T, b: T): number {
  return a === b ? 0 : a < b ? 1 : -1;
}

/** Similar names in every state: one database's candidates, from each shard's first names of every probe. */
export async function similarNamesAcross(reader: ShardReader, name: string): Promise<SimilarName[]> {
  return similarOf({ name }, await onEveryShard(reader, (db) => probeNames(db, { name })));
}
