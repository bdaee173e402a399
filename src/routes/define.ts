/**
 * What every lookup route shares: the API-key requirement (enforced and
 * documented), its operation id, the responses and headers it documents,
 * and the paging and recency constants.
 */
import { createRoute, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { recentWindowStart } from "../domain/time.ts";
import { requireApiKey } from "../http/auth.ts";
import { httpCache, revalidateOnly } from "../http/caching.ts";
import type { AppEnv } from "../http/context.ts";
import { limitByClientAddress } from "../http/rateLimit.ts";
import { errorResponses, requestHeaders, successHeaders } from "./openapi.ts";

export const PAGE_SIZE_A = 5;
export const PAGE_SIZE_B = 10;

/**
 * The query schema with `examples` as its parameters' examples: values that
 * return data on the seeded database (docs/seed.md), so the reference page's
 * "Try it out" finds something. Validation is unchanged.
 */
export function withExamples<Q extends z.ZodObject>(query: Q, examples: Partial<Record<keyof Q["shape"], string>>): Q {
  const shape = query.shape as Record<string, z.ZodType>;
  const documented: Record<string, z.ZodType> = {};
  for (const [name, example] of Object.entries(examples)) {
    const field = shape[name];
    if (field) documented[name] = field.openapi({ param: { example } });
  }
  // safeExtend keeps the object's own checks, if it has any; the fields keep
  // their types (only their documentation changes), which inference cannot see.
  return query.safeExtend(documented as never) as Q;
}

/**
 * A GET lookup with JSON `schema` as its 200 body. `operationId` names the
 * operation in the document (and the method of generated clients).
 * `access: "key"` requires an API key; `"public"` is open and limited per
 * client address.
 */
export function lookupRoute<P extends string, Q extends z.ZodObject, S extends z.ZodType>(config: {
  operationId: string;
  path: P;
  tags: string[];
  summary: string;
  description: string;
  query: Q;
  examples: Partial<Record<keyof Q["shape"], string>>;
  schema: S;
  access?: "key" | "public";
  /** `revalidate`: ETag and 304 only, never the edge cache (a feed must show the last load at once). */
  cache?: "edge" | "revalidate";
  /** Error responses beyond every lookup's (the change feed's 410). */
  moreErrors?: Record<number, { $ref: string }>;
}) {
  const isPublic = config.access === "public";
  const { 401: unauthorized, ...otherErrors } = errorResponses;
  return createRoute({
    method: "get",
    path: config.path,
    operationId: config.operationId,
    tags: config.tags,
    summary: config.summary,
    description: config.description,
    security: isPublic ? [] : [{ ApiKey: [] }],
    // Access first: nothing reaches the cache (or the database) unauthorized.
    middleware: [
      isPublic ? limitByClientAddress : requireApiKey,
      config.cache === "revalidate" ? revalidateOnly : httpCache,
    ] as const,
    request: { query: withExamples(config.query, config.examples) },
    parameters: requestHeaders,
    responses: {
      200: {
        description: "The page of results.",
        headers: successHeaders,
        content: { "application/json": { schema: config.schema } },
      },
      304: {
        description: "Not modified: a tag in `If-None-Match` matches the current answer. No body.",
        headers: successHeaders,
      },
      ...(isPublic ? {} : { 401: unauthorized }),
      ...config.moreErrors,
      ...otherErrors,
    },
  });
}

/** Start of the recency window (see recentWindowStart), as a stored-timestamp string. */
export function recentSince(c: Context<AppEnv>): string {
  return recentWindowStart(c.get("now"));
}
