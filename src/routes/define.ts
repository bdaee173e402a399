/**
 * What every lookup route shares: the API-key requirement (enforced and
 * documented), the error responses, and the paging and recency constants.
 */
import { createRoute, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { recentWindowStart } from "../domain/time.ts";
import { requireApiKey } from "../http/auth.ts";
import { httpCache } from "../http/caching.ts";
import type { AppEnv } from "../http/context.ts";
import { limitByClientAddress } from "../http/rateLimit.ts";
import { errorBody } from "../http/responses.ts";

export const PAGE_SIZE_A = 5;
export const PAGE_SIZE_B = 10;

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: errorBody } },
});

const commonErrors = {
  400: error("A query parameter is missing or invalid; `details` names each one."),
  500: error("An unexpected error; the request id identifies it in the logs."),
  503: error("The database or key store is unavailable; retry after `Retry-After` seconds."),
} as const;

/**
 * A GET lookup with JSON `schema` as its 200 body. `access: "key"` requires
 * an API key; `"public"` is open and limited per client address.
 */
export function lookupRoute<Q extends z.ZodObject, S extends z.ZodType>(config: {
  path: string;
  tags: string[];
  summary: string;
  description: string;
  query: Q;
  schema: S;
  access?: "key" | "public";
}) {
  const isPublic = config.access === "public";
  return createRoute({
    method: "get",
    path: config.path,
    tags: config.tags,
    summary: config.summary,
    description: config.description,
    security: isPublic ? [] : [{ ApiKey: [] }],
    // Access first: nothing reaches the cache (or the database) unauthorized.
    middleware: [isPublic ? limitByClientAddress : requireApiKey, httpCache] as const,
    request: { query: config.query },
    responses: {
      200: { description: "The page of results.", content: { "application/json": { schema: config.schema } } },
      304: { description: "Not modified: the `If-None-Match` tag still matches." },
      ...commonErrors,
      ...(isPublic
        ? { 429: error("Too many requests from this address; retry after `Retry-After` seconds.") }
        : { 401: error("The x-api-key header is missing, or the key is unknown or revoked.") }),
    },
  });
}

/** Start of the recency window (see recentWindowStart), as a stored-timestamp string. */
export function recentSince(c: Context<AppEnv>): string {
  return recentWindowStart(c.get("now"));
}
