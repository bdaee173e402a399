/**
 * D1 session bookmarks over HTTP (docs/read-replication.md).
 *
 * Every response that read D1 carries the bookmark of the database state it
 * read in `x-d1-bookmark`. A client that sends that bookmark back is served
 * from a state at least as new: a replica that has caught up to it, or a
 * cache entry made at or after it.
 */

import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";

export const BOOKMARK_HEADER = "x-d1-bookmark";

// D1 bookmarks are four hex groups, 8-8-8-32, such as
// 00000001-00000002-00004e2f-0a83ea2fceebc654de0640c422be4653. The bound is
// checked before the pattern, so an oversized header costs nothing.
const bookmark = z
  .string()
  .max(64, `${BOOKMARK_HEADER} is too long to be a D1 bookmark.`)
  .regex(
    /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/,
    `${BOOKMARK_HEADER} must be a bookmark from an earlier response's ${BOOKMARK_HEADER} header.`,
  );

/** The bookmark the client sent, if any; a malformed one is a 400 naming the header. */
export function requestedBookmark(c: Context<AppEnv>): string | undefined {
  const raw = c.req.header(BOOKMARK_HEADER)?.trim();
  // Empty counts as absent, as for query parameters (a client may echo an empty header).
  if (!raw) return undefined;
  const parsed = bookmark.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new ApiError("invalid_parameter", `Invalid header: ${BOOKMARK_HEADER}.`, {
    details: parsed.error.issues.slice(0, 1).map((issue) => ({ parameter: BOOKMARK_HEADER, message: issue.message })),
  });
}

/**
 * Whether a state with bookmark `have` is at least as new as `want`. D1
 * bookmarks compare in time order as plain strings.
 */
export function isAtLeast(have: string | null | undefined, want: string): boolean {
  return have != null && have >= want;
}
