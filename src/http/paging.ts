/**
 * Where a page of a list starts and where the next one does. A request asks
 * for `page` (a number) or `cursor` (the `next_cursor` of the page before:
 * src/http/cursor.ts). A cursor holds the next page's number and the
 * position of the last item shown, and is sealed to its list: the route's
 * path and every other parameter of the request, so a cursor cannot carry
 * one list's position into another, nor into the same list with other
 * filters (a 400 naming `cursor`).
 */
import { z } from "@hono/zod-openapi";
import { MAX_SHARDS } from "../db/shards.ts";
import { FILING_NUMBER } from "../domain/limits.ts";
import type { AddressPosition } from "../queries/debtors.ts";
import type { CrossPosition } from "../queries/fanout.ts";
import {
  type ListedFilingWithParties,
  type ListPosition,
  type PageWindow,
  positionOf,
  windowOf,
} from "../queries/filings.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";

/** Where a request's page starts: its number, and with a cursor the position the list resumes below. */
export interface Start<P> {
  page: number;
  after?: P | undefined;
}

/** A position in a filing list of one state: the last item's list time as stored (seconds) and number. */
export const filingPosition = z.strictObject({
  at: z.number().int(),
  num: z.string().regex(FILING_NUMBER),
}) satisfies z.ZodType<ListPosition>;

/** A position in a filing list spanning states: also the item's id and the index of its shard. */
export const crossPosition = filingPosition.extend({
  fid: z.number().int(),
  shard: z
    .number()
    .int()
    .min(0)
    .max(MAX_SHARDS - 1),
}) satisfies z.ZodType<CrossPosition>;

/** A known address's position: when it was last used as stored (seconds), and its address key. */
export const addressPosition = z.strictObject({
  at: z.number().int(),
  address: z.number().int().min(0),
}) satisfies z.ZodType<AddressPosition>;

/**
 * A position by rank: the items before it. For lists computed whole on
 * every page (similar names: ranked from bounded probes; co-borrowers:
 * grouped from the found debtors' every link), resuming from a rank costs
 * what resuming from a key would (docs/api/paging.md).
 */
export const rankPosition = z.strictObject({ rank: z.number().int().min(0) });

/** The window of `start`'s page in a list resumed by rank: read whole, so a cursor's page starts at its rank. */
export const rankWindow = (start: Start<{ rank: number }>, size: number) =>
  windowOf(start, size, (after) => after.rank);

/**
 * The list a request pages through: its path and every parameter but `page`
 * and `cursor`, as validated (industries in one order), so a cursor is good
 * for exactly the list it came from.
 */
export function listOf(path: string, query: Record<string, unknown>): string {
  const filters = Object.entries(query)
    .filter(([name, value]) => name !== "page" && name !== "cursor" && value !== undefined)
    .map(([name, value]) => [name, Array.isArray(value) ? [...value].sort() : value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${path}?${JSON.stringify(filters)}`;
}

/** The page a request asks for: `page` (default 1), or the page and position its cursor holds (a 400 naming `cursor` if it is not this list's). */
export async function startOf<P>(
  list: string,
  query: { page?: number | undefined; cursor?: string | undefined },
  position: z.ZodType<P>,
): Promise<Start<P>> {
  if (query.cursor === undefined) return { page: query.page ?? 1 };
  return decodeCursor(list, query.cursor, z.strictObject({ page: z.number().int().min(2), after: position }));
}

/** The cursor of the page after `window`, resuming below `last` (the page's last item); none without one. */
export function nextCursor<P>(list: string, window: PageWindow, last: P | undefined): string | undefined {
  return last === undefined ? undefined : encodeCursor(list, { page: window.page + 1, after: last });
}

/**
 * The cursor of the page after `window` of a list resumed by rank, which
 * showed `shown` of its `total` items: the rank of the next item, if any.
 */
export function rankCursor(
  list: string,
  window: Required<PageWindow>,
  shown: number,
  total: number,
): string | undefined {
  const rank = window.offset + shown;
  return nextCursor(list, window, rank < total ? { rank } : undefined);
}

/**
 * The cursor of the page after `window` of a filing list of one state, when
 * `more` follow: it resumes past the page's last item, at its `position` in
 * the list (default: by filing time).
 */
export function filingCursor(
  list: string,
  window: PageWindow,
  more: boolean,
  items: ListedFilingWithParties[],
  position: (item: ListedFilingWithParties) => ListPosition = positionOf,
): string | undefined {
  const last = items.at(-1);
  return nextCursor(list, window, more && last ? position(last) : undefined);
}

/**
 * Envelope A: another page follows when the count says so, as
 * `total_pages` does, so a walk by cursor stops where a walk by page does.
 */
export const countedMore = (window: PageWindow, total: number) => window.page * window.size < total;
