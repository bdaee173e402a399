/**
 * D1 session bookmarks over HTTP (docs/read-replication.md).
 *
 * Every response that read D1 carries, in `x-d1-bookmark`, the bookmark of
 * the database state it read on each shard it touched (src/db/shards.ts). A
 * client that sends that header back is served, on every shard the next
 * request touches, from a state at least as new: a replica that has caught
 * up to it, or a cache entry made at or after it.
 *
 * The header is a comma-separated list of `SHARD=BOOKMARK` entries, one per
 * shard, such as
 *   DB=00000001-00000002-00004e2f-0a83...,DB_2=00000001-00000005-00000011-9c1f...
 * A plain D1 bookmark (no `SHARD=`) is the default shard's: that is the
 * whole header when there is one shard, so a one-database deployment sends
 * and takes plain D1 bookmarks, as before sharding. Entries of shards the
 * layout does not have (a shard since removed) are well-formed and ignored.
 */

import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { DEFAULT_SHARD, MAX_SHARDS } from "../db/shards.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";

export const BOOKMARK_HEADER = "x-d1-bookmark";

/** One D1 bookmark: four hex groups, 8-8-8-32. */
const D1_BOOKMARK = "[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}";
const ENTRY = `DB(?:_[A-Z0-9_]{1,29})?=${D1_BOOKMARK}`;
/** The header's pattern (also the OpenAPI document's). */
export const BOOKMARK_PATTERN = `^(?:${D1_BOOKMARK}|${ENTRY}(?:,${ENTRY}){0,${MAX_SHARDS - 1}})$`;
/** Longest well-formed header: MAX_SHARDS entries of the longest binding name. */
const MAX_LENGTH = MAX_SHARDS * (32 + 1 + 59) + MAX_SHARDS - 1;

// The bound is checked before the pattern, so an oversized header costs nothing.
const header = z
  .string()
  .max(MAX_LENGTH, `${BOOKMARK_HEADER} is too long to be a bookmark list.`)
  .regex(
    new RegExp(BOOKMARK_PATTERN),
    `${BOOKMARK_HEADER} must be the ${BOOKMARK_HEADER} header of an earlier response (SHARD=BOOKMARK entries, comma-separated).`,
  )
  .refine((value) => {
    const names = value.split(",").map((entry) => entry.split("=")[0]);
    return new Set(names).size === names.length;
  }, `${BOOKMARK_HEADER} names a shard twice.`);

/** Bookmarks by shard binding. */
export type Bookmarks = ReadonlyMap<string, string>;

/** The bookmarks in a well-formed header value (a plain bookmark is the default shard's). */
export function parseBookmarks(value: string): Map<string, string> {
  if (!value.includes("=")) return new Map([[DEFAULT_SHARD, value]]);
  return new Map(value.split(",").map((entry) => entry.split("=", 2) as [string, string]));
}

/**
 * The header value of `bookmarks`: a plain bookmark when the only shard of
 * a one-database layout, else sorted `SHARD=BOOKMARK` entries.
 */
export function formatBookmarks(bookmarks: Bookmarks, singleShard: boolean): string | undefined {
  if (bookmarks.size === 0) return undefined;
  if (singleShard && bookmarks.size === 1 && bookmarks.has(DEFAULT_SHARD)) return bookmarks.get(DEFAULT_SHARD);
  return [...bookmarks]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([shard, bookmark]) => `${shard}=${bookmark}`)
    .join(",");
}

/** The entries of `bookmarks` for shards of the layout (others are ignored, not echoed). */
export function knownShards(bookmarks: Bookmarks | undefined, shards: readonly string[]): Map<string, string> {
  return new Map([...(bookmarks ?? [])].filter(([shard]) => shards.includes(shard)));
}

/** Per shard, the newer of the two bookmarks. */
export function newest(a: Bookmarks, b: Bookmarks): Map<string, string> {
  const merged = new Map(a);
  for (const [shard, bookmark] of b) {
    const other = merged.get(shard);
    if (other === undefined || bookmark > other) merged.set(shard, bookmark);
  }
  return merged;
}

/** The bookmarks the client sent, if any; a malformed header is a 400 naming it. */
export function requestedBookmarks(c: Context<AppEnv>): Map<string, string> | undefined {
  const raw = c.req.header(BOOKMARK_HEADER)?.trim();
  // Empty counts as absent, as for query parameters (a client may echo an empty header).
  if (!raw) return undefined;
  const parsed = header.safeParse(raw);
  if (parsed.success) return parseBookmarks(parsed.data);
  throw new ApiError("invalid_parameter", `Invalid header: ${BOOKMARK_HEADER}.`, {
    details: parsed.error.issues.slice(0, 1).map((issue) => ({ parameter: BOOKMARK_HEADER, message: issue.message })),
  });
}

/**
 * Whether states with bookmarks `have` are at least as new as `want` on
 * every shard both name (D1 bookmarks compare in time order as plain
 * strings). A shard `have` does not name was not read, so it cannot be too
 * old; `have` with no bookmark at all is never known to be new enough.
 */
export function isAtLeast(have: Bookmarks | undefined, want: Bookmarks): boolean {
  if (!have || have.size === 0) return false;
  for (const [shard, bookmark] of have) {
    const wanted = want.get(shard);
    if (wanted !== undefined && bookmark < wanted) return false;
  }
  return true;
}
