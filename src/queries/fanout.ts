/**
 * Cross-state lists over several shards (docs/fan-out.md): every shard is
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
 * The lists of one state split over several databases (src/db/shards.ts)
 * merge here too, each of the state's parts read as a shard: a request
 * gives its parts as the reader's shards (src/http/d1.ts, stateReader),
 * and lists of one state may run by another time (termination, lapse
 * day, soonest first: ListOrder). A state's filing numbers are unique and
 * name their part, so its parts never tie on time and number: a cursor of
 * one state holds no shard.
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
  countedStatements,
  type FilingFilter,
  fetchCountedPage,
  fetchListKeys,
  fetchOpenPage,
  fetchTotal,
  type ListedFilingWithParties,
  type ListPosition,
  type OpenOptions,
  openStatements,
  type PageStatements,
  type PageWindow,
  positionOf,
  readCountedPage,
  readOpenPage,
  windowOf,
  withoutEndCheck,
} from "./filings.ts";
import { lapsePosition } from "./lapsing.ts";
import {
  candidatesOf,
  namesByKey,
  probeNames,
  probeStatement,
  rankedOf,
  type SimilarName,
  similarQuery,
} from "./similar.ts";

/** Pages up to this one are read in one round trip, each shard sending its first page * size rows whole. */
const DIRECT_PAGES = 2;

/**
 * A place in a merged filing list: the item's position in its shard's list
 * (with its id: one time and number may be two states' filings), and that
 * shard's index in the layout (ids differ between shards; ties of time and
 * number follow shard order).
 */
export interface CrossPosition extends ListPosition {
  fid: number;
  shard: number;
}

/**
 * Where a list resumes: a position in a list spanning shards (CrossPosition),
 * or in a list of one state, whose parts never tie on time and number.
 */
export type Resume = CrossPosition | ListPosition;

/** Where shard `shard`'s rows after `p` in the merged order start: below `p`, its ties before or after by shard order. */
function boundIn(p: Resume, shard: number): ListPosition {
  if (!("shard" in p)) return p;
  const fid = shard < p.shard ? Number.MIN_SAFE_INTEGER : shard > p.shard ? Number.MAX_SAFE_INTEGER : p.fid;
  return { at: p.at, num: p.num, fid };
}

/**
 * How a filing list is ordered, across shards as in one database: each
 * item's place (its list time or lapse day, and number) and the direction.
 */
interface ListOrder {
  positionOf: (item: ListedFilingWithParties) => ListPosition;
  /** Soonest first (a lapse list); lists are newest first. */
  ascending?: boolean | undefined;
}

/** The order of `filter`'s list: by filing time, termination time, or lapse day (src/queries/lapsing.ts). */
function orderOf(filter: FilingFilter): ListOrder {
  if (filter.ascending) return { positionOf: lapsePosition, ascending: true };
  return { positionOf: (item) => positionOf(item, filter.byTermination) };
}

const BY_FILING: ListOrder = { positionOf: (item) => positionOf(item) };

/** `build`, keeping the order of the filters it builds (all of one list: one order), so none is built only for it. */
function ordered<F extends FilingFilter>(build: Build<F>): { build: Build<F>; order: () => ListOrder } {
  let order: ListOrder | undefined;
  return {
    build: (after) => {
      const filter = build(after);
      order ??= orderOf(filter);
      return filter;
    },
    order: () => order ?? orderOf(build()),
  };
}

interface Placed {
  at: number | string;
  num: string;
  /** Index of the shard in the layout, then the row's position in that shard's list. */
  shard: number;
  position: number;
}

/** List order across shards: by time (newest first, or soonest for an ascending list), then number, then shard and position. */
function listOrder(ascending: boolean | undefined) {
  const later = ascending ? -1 : 1;
  return (a: Placed, b: Placed): number => {
    if (a.at !== b.at) return a.at < b.at ? later : -later;
    if (a.num !== b.num) return a.num < b.num ? later : -later;
    return a.shard - b.shard || a.position - b.position;
  };
}

type PlacedItem = Placed & { item: ListedFilingWithParties };

function placed(items: ListedFilingWithParties[], shard: number, first: number, order: ListOrder): PlacedItem[] {
  return items.map((item, i) => {
    const { at, num } = order.positionOf(item);
    return { item, at, num, shard, position: first + i };
  });
}

/** Rows `from` to `to` (exclusive) of the merge of the shards' parts. */
function mergedSlice<T extends Placed>(parts: T[][], from: number, to: number, ascending?: boolean): T[] {
  return parts.flat().sort(listOrder(ascending)).slice(from, to);
}

/** Items `from` to `to` of the merge of each shard's rows, each part from its list's start or its bound. */
function mergedItems(
  parts: { items: ListedFilingWithParties[] }[],
  from: number,
  to: number,
  order: ListOrder,
): PlacedItem[] {
  return mergedSlice(
    parts.map((p, shard) => placed(p.items, shard, 0, order)),
    from,
    to,
    order.ascending,
  );
}

/** The position of the last of `slice`, where a cursor resumes. */
function lastOf(slice: PlacedItem[]): CrossPosition | undefined {
  const last = slice.at(-1);
  return last && { ...positionOf(last.item), fid: last.item.filing.id, shard: last.shard };
}

/** A merged page: its items, and where the list resumes after it. */
interface MergedPage {
  items: ListedFilingWithParties[];
  last: CrossPosition | undefined;
}

const pageOf = (slice: PlacedItem[]): MergedPage => ({ items: slice.map((p) => p.item), last: lastOf(slice) });

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
function partsOfSlice(
  keys: { at: string; num: string }[][],
  from: number,
  to: number,
  ascending?: boolean,
): Map<number, [number, number]> {
  const slice = mergedSlice(
    keys.map((ks, shard) => ks.map((k, position) => ({ ...k, shard, position }))),
    from,
    to,
    ascending,
  );
  const parts = new Map<number, [number, number]>();
  for (const row of slice) {
    const part = parts.get(row.shard);
    if (part) part[1] += 1;
    else parts.set(row.shard, [row.position, 1]);
  }
  return parts;
}

/** A list's filter, below a shard's bound of `after` when resuming. */
type Build<F> = (after?: ListPosition) => F;

/**
 * Runs `read` on every shard with its part's statements: from the list's
 * start, one set built and rendered once for every shard; resumed below
 * `after`, each shard's own, from its bound (one round trip, what page 1
 * costs).
 */
function onEveryPart<T>(
  reader: ShardReader,
  after: Resume | undefined,
  statementsOf: (bound?: ListPosition) => PageStatements,
  read: (db: Db, statements: PageStatements) => Promise<T>,
): Promise<T[]> {
  if (!after) {
    const statements = statementsOf();
    return onEveryShard(reader, (db) => read(db, statements));
  }
  return onEveryShard(reader, (db, name) => read(db, statementsOf(boundIn(after, reader.shards.indexOf(name)))));
}

/**
 * A counted page (envelope A) of a cross-state filing list: the page asked
 * by number, or the one below `after` (a cursor's position).
 */
export async function countedPageAcross(
  reader: ShardReader,
  build: Build<CountedFilter>,
  { page, size }: Pick<PageWindow, "page" | "size">,
  after?: Resume,
): Promise<MergedPage & { total: number }> {
  const window = windowOf({ page, after }, size);
  const from = window.offset;
  const reach = from + size;
  if (reader.shards.length === 1) {
    // One database: its own page, as before sharding.
    const only = onlyOf(
      await onEveryPart(reader, after, (bound) => countedStatements(build(bound), window), readCountedPage),
    );
    return { ...pageOf(placed(only.items, 0, 0, BY_FILING)), total: only.total };
  }
  if (after || page <= DIRECT_PAGES) {
    const direct = { page: 1, size: reach, offset: 0 };
    const list = ordered(build);
    const parts = await onEveryPart(
      reader,
      after,
      (bound) => countedStatements(list.build(bound), direct),
      readCountedPage,
    );
    return { ...pageOf(mergedItems(parts, from, reach, list.order())), total: sum(parts.map((p) => p.total)) };
  }
  // Deeper pages by number: the counts first, so that a page past the end
  // reads no list; then each shard's list keys, then the page's rows.
  const filter = build();
  const order = orderOf(filter);
  const total = sum((await onEveryShard(reader, (db) => fetchTotal(db, filter))).map((t) => t.total));
  if (from >= total) return { items: [], last: undefined, total };
  const listed = await onEveryShard(reader, (db) => fetchListKeys(db, filter, reach));
  const slice = await pageRows(reader, listed, from, reach, order, async (db, window) => {
    return (await fetchCountedPage(db, withoutEndCheck(filter), window)).items;
  });
  return { ...pageOf(slice), total };
}

/**
 * An open page (envelope B: more or not, and the data-load time) of a
 * cross-state filing list: the page asked by number, or the one below
 * `after`.
 */
export async function openPageAcross(
  reader: ShardReader,
  build: Build<FilingFilter | CountedFilter>,
  { page, size }: Pick<PageWindow, "page" | "size">,
  options: OpenOptions,
  after?: Resume,
): Promise<MergedPage & { hasMore: boolean; dataLoadedAt: string | null }> {
  const window = windowOf({ page, after }, size);
  const from = window.offset;
  const reach = from + size;
  const statementsOf = (make: typeof build) => (window: PageWindow) => (bound?: ListPosition) =>
    openStatements(make(bound), window, options.amendments, options.reading);
  // A list of one state says when that state was loaded, in any of its parts.
  const readPage = (db: Db, statements: PageStatements) => readOpenPage(db, statements, options.state);
  if (reader.shards.length === 1) {
    const only = onlyOf(await onEveryPart(reader, after, statementsOf(build)(window), readPage));
    return { ...only, ...pageOf(placed(only.items, 0, 0, BY_FILING)) };
  }
  if (after || page <= DIRECT_PAGES) {
    const list = ordered(build);
    const direct = { page: 1, size: reach, offset: 0 };
    const parts = await onEveryPart(reader, after, statementsOf(list.build)(direct), readPage);
    const rows = sum(parts.map((p) => p.items.length));
    return {
      ...pageOf(mergedItems(parts, from, reach, list.order())),
      hasMore: rows > reach || parts.some((p) => p.hasMore),
      dataLoadedAt: latest(parts.map((p) => p.dataLoadedAt)),
    };
  }
  // Deeper pages by number: a counted list's counts first, as above.
  const filter = build();
  const order = orderOf(filter);
  const totals =
    "count" in filter ? await onEveryShard(reader, (db) => fetchTotal(db, filter, options.state)) : undefined;
  if (totals && from >= sum(totals.map((t) => t.total))) {
    return { items: [], last: undefined, hasMore: false, dataLoadedAt: latest(totals.map((t) => t.dataLoadedAt)) };
  }
  // One row past the page, to tell whether another follows.
  const listed = await onEveryShard(reader, (db) => fetchListKeys(db, filter, reach + 1, options.state));
  const slice = await pageRows(reader, listed, from, reach, order, async (db, window) => {
    return (await fetchOpenPage(db, withoutEndCheck(filter), window, options)).items;
  });
  return {
    ...pageOf(slice),
    hasMore: sum(listed.map((l) => l.keys.length)) > reach,
    dataLoadedAt: latest(listed.map((l) => l.dataLoadedAt)),
  };
}

/** The rows of the merged list's [from, to) from the shards that hold them (a round trip of its own). */
async function pageRows(
  reader: ShardReader,
  listed: { keys: { at: string; num: string }[] }[],
  from: number,
  to: number,
  order: ListOrder,
  fetch: (db: Db, window: PageWindow) => Promise<ListedFilingWithParties[]>,
): Promise<PlacedItem[]> {
  const parts = partsOfSlice(
    listed.map((l) => l.keys),
    from,
    to,
    order.ascending,
  );
  if (parts.size === 0) return [];
  const all = reader.shards;
  // Each shard's binding name -> its index in the layout and its rows' window.
  const windows = new Map([...parts].map(([shard, window]) => [all[shard] ?? "", { shard, window }]));
  const fetched = await reader.read([...windows.keys()], async (db, name) => {
    const part = windows.get(name);
    if (!part) return [];
    const [offset, count] = part.window;
    return placed(await fetch(db, { page: 1, size: count, offset }), part.shard, offset, order);
  });
  return mergedSlice(fetched, 0, to - from, order.ascending);
}

/**
 * A page of a list whose parts read their own pages (`read`: a window of
 * the part's list, from its start or below its bound), merged in `order`:
 * lender search (src/queries/lenders.ts), whose statement walks its keys
 * in one query and has no list keys to read first. Every page, at any
 * depth by number, is one round trip: each part sends its first
 * page * size rows (by cursor: size rows below its bound), so a deep page
 * by number reads more rows than a keys-first merge would; they still grow
 * with the page, not the data. One part reads its own page, as one
 * database does.
 */
async function mergedPageAcross<T extends { items: ListedFilingWithParties[] }>(
  reader: ShardReader,
  read: (db: Db, window: PageWindow, bound?: ListPosition) => Promise<T>,
  { page, size }: Pick<PageWindow, "page" | "size">,
  order: ListOrder,
  after?: Resume,
): Promise<{ page: MergedPage; parts: T[]; reach: number }> {
  const window = windowOf({ page, after }, size);
  const reach = window.offset + size;
  if (reader.shards.length === 1) {
    const [only] = await onEveryShard(reader, (db) => read(db, window, after && boundIn(after, 0)));
    const part = only as T;
    return { page: pageOf(placed(part.items, 0, 0, order)), parts: [part], reach: size };
  }
  const direct = { page: 1, size: reach, offset: 0 };
  const parts = await onEveryShard(reader, (db, name) =>
    read(db, direct, after && boundIn(after, reader.shards.indexOf(name))),
  );
  return { page: pageOf(mergedItems(parts, window.offset, reach, order)), parts, reach };
}

/** mergedPageAcross of counted pages (envelope A): counts add, a filing being in one part. */
export async function countedPartsAcross(
  reader: ShardReader,
  read: (
    db: Db,
    window: PageWindow,
    bound?: ListPosition,
  ) => Promise<{ items: ListedFilingWithParties[]; total: number }>,
  window: Pick<PageWindow, "page" | "size">,
  after?: Resume,
): Promise<MergedPage & { total: number }> {
  const { page, parts } = await mergedPageAcross(reader, read, window, BY_FILING, after);
  return { ...page, total: sum(parts.map((p) => p.total)) };
}

/** mergedPageAcross of open pages (envelope B): more follow when any part has rows past the merged page. */
export async function openPartsAcross(
  reader: ShardReader,
  read: (
    db: Db,
    window: PageWindow,
    bound?: ListPosition,
  ) => Promise<{ items: ListedFilingWithParties[]; hasMore: boolean; dataLoadedAt: string | null }>,
  window: Pick<PageWindow, "page" | "size">,
  after?: Resume,
): Promise<MergedPage & { hasMore: boolean; dataLoadedAt: string | null }> {
  const { page, parts, reach } = await mergedPageAcross(reader, read, window, BY_FILING, after);
  const rows = sum(parts.map((p) => p.items.length));
  return {
    ...page,
    hasMore: rows > reach || parts.some((p) => p.hasMore),
    dataLoadedAt: latest(parts.map((p) => p.dataLoadedAt)),
  };
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function latest(times: (string | null)[]): string | null {
  return times.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);
}

type AddressRow = debtorQueries.AddressRow;

/** Known-address rows in list order: last used, then address key, then name key, newest first. */
const addressOrder = (a: AddressRow, b: AddressRow) =>
  compareDesc(a.lastUsed, b.lastUsed) || compareDesc(a.addressKey, b.addressKey) || compareDesc(a.nameKey, b.nameKey);

/** A page of known addresses, their count, and where the list resumes after it. */
interface AddressPage {
  rows: AddressRow[];
  total: number;
  last: debtorQueries.AddressPosition | undefined;
}

const addressPageOf = (rows: AddressRow[], total: number): AddressPage => {
  const final = rows.at(-1);
  return { rows, total, last: final && debtorQueries.addressPositionOf(final) };
};

/**
 * Known addresses of a debtor across every shard (one database is the same
 * with one shard): each address once, as most recently used under any found
 * name in any state, and counted once. The page asked by number, or the one
 * below `after` (a cursor's position: addressesBelow), read by number when
 * the rows below it cannot settle the page.
 *
 * By number: (past the direct pages, after the count, so that a page past
 * the end reads no rows) each shard sends its first ROWS_PER_ADDRESS * page * size rows
 * in list order and its found debtors' address sets, in one round trip. A
 * shard's newest `reach` distinct addresses hold every one of them the page
 * can show, and the rows before an address's newest row are rows of
 * addresses ahead of it. So when a shard's rows hold fewer than `reach`
 * addresses and were cut by the limit (an address under more found names
 * than ROWS_PER_ADDRESS, over many rows), that shard is read again, to
 * `reach` rows per found debtor: enough, since an address has at most one
 * row per debtor. The count is the union of the address sets.
 */
export async function knownAddressesAcross(
  reader: ShardReader,
  name: string,
  { page, size }: Pick<PageWindow, "page" | "size">,
  after?: debtorQueries.AddressPosition,
): Promise<AddressPage> {
  if (after) {
    const settled = await addressesBelow(reader, name, size, after);
    if (settled) return settled;
  }
  // Read by number, also when a cursor's position cannot be resumed (addressesBelow).
  const reach = page * size;
  const all = reader.shards;
  // Deeper pages by number: the count first, so that a page past the end
  // reads no rows; the address sets read for it are not read again.
  let known: Map<string, debtorQueries.AddressSet[]> | undefined;
  if (page > DIRECT_PAGES) {
    const sets = await onEveryShard(reader, (db) => debtorQueries.knownAddressSets(db, name));
    const total = addressTotal(sets.map((part) => ({ sets: part })));
    if ((page - 1) * size >= total) return addressPageOf([], total);
    known = new Map(sets.map((part, shard) => [all[shard] ?? "", part]));
  }
  // The same statements for every shard: rendered once.
  const statements = debtorQueries.addressStatements(name, reach * debtorQueries.ROWS_PER_ADDRESS);
  const parts = await onEveryShard(reader, (db, shard) =>
    debtorQueries.knownAddressCandidates(db, statements, known?.get(shard)),
  );
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
          return debtorQueries.addressRowsOf(rows);
        });
  const rows = [...parts.map((p) => p.rows), ...again].flat().sort(addressOrder);
  const newest = new Map<number, AddressRow>();
  for (const row of rows) if (!newest.has(row.addressKey)) newest.set(row.addressKey, row);
  return addressPageOf([...newest.values()].slice((page - 1) * size, reach), addressTotal(parts));
}

/**
 * The distinct addresses of every found debtor in every shard. A debtor's
 * set holds each key once, so the largest set is counted by its length and
 * only the others' keys are hashed: a busy debtor's thousands of addresses
 * are read once, not each put into a Set.
 */
function addressTotal(parts: { sets: { addressKeys: number[] }[] }[]): number {
  const sets = parts.flatMap((p) => p.sets.map((s) => s.addressKeys));
  const largest = sets.reduce((a, b) => (b.length > a.length ? b : a), []);
  const others = new Set<number>();
  for (const keys of sets) if (keys !== largest) for (const key of keys) others.add(key);
  if (others.size === 0) return largest.length;
  let shared = 0;
  for (const key of largest) if (others.has(key)) shared++;
  return largest.length + others.size - shared;
}

/**
 * The `size` addresses after `after`, from each shard's first
 * ROWS_PER_ADDRESS * size rows below it (one round trip, what page 1
 * reads), or undefined when those rows cannot settle the page.
 *
 * An address of those rows was shown before when one of its rows lies
 * above `after`: each found debtor has at most one row per address, and the
 * address sets say which debtors of which shard hold it, so an address with
 * fewer rows below `after` than holders in a shard whose rows were not cut
 * was shown. When the missing row's shard was cut, it may lie above or
 * beyond the rows read: unsettled. So is a page that the rows, read up to
 * where the first cut shard stops, do not fill. A debtor found under one
 * name (most organizations) is always settled in one database; the others
 * only when an address is filed under several found names, or in states
 * of several shards, far apart in time.
 */
async function addressesBelow(
  reader: ShardReader,
  name: string,
  size: number,
  after: debtorQueries.AddressPosition,
): Promise<AddressPage | undefined> {
  const limit = size * debtorQueries.ROWS_PER_ADDRESS;
  const statements = debtorQueries.addressStatements(name, limit, after);
  const parts = await onEveryShard(reader, (db) => debtorQueries.knownAddressCandidates(db, statements));
  // Per address: its holders (found debtors whose set has it) and its rows read, per shard.
  const count = (counts: Map<number, number[]>, address: number, shard: number) => {
    const perShard = counts.get(address) ?? new Array<number>(parts.length).fill(0);
    perShard[shard] = (perShard[shard] ?? 0) + 1;
    counts.set(address, perShard);
  };
  const holders = new Map<number, number[]>();
  const read = new Map<number, number[]>();
  parts.forEach((part, shard) => {
    for (const row of part.rows) count(read, row.addressKey, shard);
  });
  // Holders only of the addresses read: a busy debtor's other keys are passed over, not counted.
  parts.forEach((part, shard) => {
    for (const set of part.sets)
      for (const address of set.addressKeys) if (read.has(address)) count(holders, address, shard);
  });
  const cut = parts.map((part) => part.rows.length === part.limit);
  /** "shown" (a row above `after`), "new", or undefined when a cut shard hides the answer. */
  const verdict = (address: number): "shown" | "new" | undefined => {
    let settled = true;
    for (const [shard, held] of (holders.get(address) ?? []).entries()) {
      if (held <= (read.get(address)?.[shard] ?? 0)) continue;
      if (!cut[shard]) return "shown";
      settled = false;
    }
    return settled ? "new" : undefined;
  };
  // Rows in list order, as far as every cut shard's rows reach: beyond the
  // first one's last row, rows it did not send could come first.
  const tagged = parts.flatMap((part, shard) => part.rows.map((row) => ({ row, shard })));
  tagged.sort((a, b) => addressOrder(a.row, b.row) || a.shard - b.shard);
  const stops = parts.flatMap((part, shard) => (cut[shard] ? [part.rows.at(-1)] : []));
  const reach = stops.reduce<AddressRow | undefined>(
    (first, row) => (row && (first === undefined || addressOrder(row, first) < 0) ? row : first),
    undefined,
  );
  const page: AddressRow[] = [];
  const met = new Set<number>();
  for (const { row } of tagged) {
    if (reach && addressOrder(row, reach) > 0) break;
    if (met.has(row.addressKey)) continue;
    met.add(row.addressKey);
    const seen = verdict(row.addressKey);
    if (seen === undefined) return undefined;
    if (seen === "new") page.push(row);
    if (page.length === size) break;
  }
  if (page.length < size && reach) return undefined;
  return addressPageOf(page, addressTotal(parts));
}

function distinctAddresses(rows: { addressKey: number }[]): number {
  return new Set(rows.map((r) => r.addressKey)).size;
}

function compareDesc<T extends string | number>(a: T, b: T): number {
  return a === b ? 0 : a < b ? 1 : -1;
}

/**
 * Similar names in every state (or in `state`, the reader holding its
 * parts): one database's candidates, from each shard's first names of
 * every probe. A name of a split state is one candidate, its parts' filings
 * added; a part that may hold it beyond a full probe's cap (candidatesOf)
 * is asked for its row by key in a second round trip, only then.
 */
export async function similarNamesAcross(reader: ShardReader, name: string, state?: string): Promise<SimilarName[]> {
  const query = similarQuery({ name, state });
  const statement = probeStatement(query);
  const parts = await onEveryShard(reader, (db) => probeNames(db, statement));
  const all = reader.shards;
  // The parts (indexes of the reader's shards) of each split state.
  const partsOf = (s: string) => {
    const held = (reader.partsOf?.(s) ?? []).map((shard) => all.indexOf(shard)).filter((i) => i >= 0);
    return held.length > 1 ? held : [];
  };
  const candidates = candidatesOf(query.probes, parts, partsOf);
  if (candidates.unsent.size === 0) return rankedOf(query, candidates);
  const asked = [...candidates.unsent];
  const more = await reader.read(
    asked.map(([part]) => all[part] ?? ""),
    (db, shard) => namesByKey(db, candidates.unsent.get(all.indexOf(shard)) ?? []),
  );
  return rankedOf(query, candidates, more);
}

/**
 * Co-borrowers of a debtor in a state (the reader holding its parts, or its
 * one database): one database's entries and count. Each part sends its
 * first ROWS_PER_ENTRY * (offset + size) entry rows in list order (latest
 * co-filing first) and the found debtors' co-debtor sets, in one round
 * trip. An entry filed with several found debtors, or in several parts, is
 * one, as last co-filed in any (its newest row kept): an entry the page
 * shows is among each part's first rows where it was last co-filed, since
 * every entry before it there comes before it in the merge too. A part
 * whose rows were cut and hold fewer entries than the page needs (an entry
 * under several found debtors over most of the page) is read again with
 * room for every found debtor (offset + size rows each): a second round
 * trip, only then. The count is the union of the sets, less the entries
 * that are found debtors themselves; one found debtor's is its set's size.
 */
export async function associatedAcross(
  reader: ShardReader,
  q: debtorQueries.AssociatedQuery,
  window: Required<PageWindow>,
): Promise<{ rows: debtorQueries.Associated[]; total: number }> {
  const reach = window.offset + window.size;
  const all = reader.shards;
  const parts = await onEveryShard(reader, (db) =>
    debtorQueries.associatedCandidates(db, q, reach * debtorQueries.ROWS_PER_ENTRY),
  );
  const short = new Map(
    parts.flatMap((part, shard) =>
      part.rows.length === part.limit && new Set(part.rows.map((r) => r.key)).size < reach
        ? [[all[shard] ?? "", part]]
        : [],
    ),
  );
  const sets = parts.flatMap((p) => p.sets);
  // A set too large to keep (LINK_SET_MAX) is counted from its part's entries, when the count is not its size alone.
  const counted =
    sets.length === 1 ? [] : parts.flatMap((p, shard) => (p.sets.some((s) => s.entries === null) ? [shard] : []));
  const [again, listed] = await Promise.all([
    short.size === 0
      ? []
      : reader.read([...short.keys()], (db, shard) =>
          debtorQueries.associatedRows(db, q, reach * (short.get(shard)?.sets.length ?? 0)),
        ),
    counted.length === 0
      ? []
      : reader.read(
          counted.map((shard) => all[shard] ?? ""),
          (db) => debtorQueries.associatedKeys(db, q),
        ),
  ]);
  const latest = new Map<string, debtorQueries.Associated>();
  for (const row of [...parts.flatMap((p) => p.rows), ...again.flat()]) {
    const kept = latest.get(row.key);
    if (!kept || row.lastSeen > kept.lastSeen) latest.set(row.key, row);
  }
  // List order: last co-filed, then the entry's name key, then its address key, newest and highest first.
  const keyOf = (row: debtorQueries.Associated) => {
    const [name = "", address = "0"] = row.key.split("|");
    return { name, address: Number(address) };
  };
  const rows = [...latest.values()].sort((a, b) => {
    const [x, y] = [keyOf(a), keyOf(b)];
    return compareDesc(a.lastSeen, b.lastSeen) || compareDesc(x.name, y.name) || compareDesc(x.address, y.address);
  });
  return { rows: rows.slice(window.offset, reach), total: associatedTotal(parts, counted, listed) };
}

/**
 * The distinct entries of every found debtor in every part: the union of
 * their sets (those of the parts `counted`: `listed`, their entries read
 * one by one), less the found debtors themselves.
 */
function associatedTotal(parts: { sets: debtorQueries.LinkSet[] }[], counted: number[], listed: string[][]): number {
  const sets = parts.flatMap((p) => p.sets);
  const [only] = sets;
  if (only && sets.length === 1) return only.links;
  const found = new Set(sets.map((s) => s.key));
  const entries = new Set(listed.flat());
  parts.forEach((part, shard) => {
    if (counted.includes(shard)) return;
    for (const entry of part.sets.flatMap((s) => s.entries ?? [])) {
      if (!found.has(entry.slice(0, entry.lastIndexOf("|")))) entries.add(entry);
    }
  });
  return entries.size;
}
