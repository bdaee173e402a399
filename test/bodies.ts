/**
 * The type of a response body, from the path a test requests: each route's
 * zod response schema (src/http/responses.ts, through the route definitions
 * in src/routes), so a test reads the fields the contract has and no others.
 */
import { z } from "@hono/zod-openapi";
import { type errorBody, type liensA, type liensB, pagination } from "../src/http/responses.ts";
import type * as reportRoutes from "../src/report/route.ts";
import type * as debtorRoutes from "../src/routes/debtors.ts";
import type * as filingRoutes from "../src/routes/filings.ts";
import type * as monitoringRoutes from "../src/routes/monitoring.ts";
import type * as securedRoutes from "../src/routes/secureds.ts";

export type ErrorBody = z.output<typeof errorBody>;
type PageA = z.output<typeof liensA>;
type PageB = z.output<typeof liensB>;

interface LookupRoute {
  path: string;
  responses: { 200: { content: { "application/json": { schema: z.ZodType } } } };
}

type Exports = typeof debtorRoutes &
  typeof filingRoutes &
  typeof securedRoutes &
  typeof monitoringRoutes &
  typeof reportRoutes;
/** Every lookup route the app registers. */
type Route = { [K in keyof Exports]: Exports[K] extends LookupRoute ? Exports[K] : never }[keyof Exports];

/** The route `path` requests: its own path, with or without a trailing slash and a query. */
type RouteAt<P extends string> = Route extends infer R
  ? R extends LookupRoute
    ? P extends R["path"] | `${R["path"]}${"" | "/"}?${string}` | `${R["path"]}/`
      ? R
      : never
    : never
  : never;

/** A path no route matches (or one typed only as `string`) has a body of unknown shape. */
type SuccessBody<P extends string> = [RouteAt<P>] extends [never]
  ? unknown
  : z.output<RouteAt<P>["responses"][200]["content"]["application/json"]["schema"]>;

/** The envelope of an operation taking `envelope` when the query names none (src/http/params.ts). */
interface DefaultEnvelope {
  "/filings/recent-by-postal-code": PageA;
  "/secureds/recent-by-secured-party": PageB;
  "/filings/lapsing": PageB;
}

/** An operation answering in either envelope: the one the query names, else its default. */
type Enveloped<P extends string, B> = [B] extends [PageA | PageB]
  ? [PageA | PageB] extends [B]
    ? P extends `${string}envelope=${"a" | "A"}${string}`
      ? PageA
      : P extends `${string}envelope=${"b" | "B"}${string}`
        ? PageB
        : RouteAt<P>["path"] extends keyof DefaultEnvelope
          ? DefaultEnvelope[RouteAt<P>["path"]]
          : B
    : B
  : B;

/** The body of a GET of `path` answered with `status`. */
export type Body<P extends string, S extends number = 200> = S extends 200 ? Enveloped<P, SuccessBody<P>> : ErrorBody;

/** The names of a body's lists (its array fields); any name for a body of unknown shape. */
export type ListOf<B> = unknown extends B ? string : { [K in keyof B]: B[K] extends unknown[] ? K : never }[keyof B];

/** An item of list `L` of body `B`; unknown for a body of unknown shape. */
export type ItemOf<B, L> = L extends keyof B ? (B[L] extends (infer I)[] ? I : never) : unknown;

/** Any counted (envelope A) page, for a path typed only as `string`: its pagination, checked. */
export const counted = z.looseObject({ pagination });

/** Any body, for a path typed only as `string`: its metadata, checked. */
export const withMetadata = z.looseObject({ response_metadata: z.record(z.string(), z.unknown()) });

/** The first item of a list a test expects to be non-empty. */
export function firstOf<T>(items: readonly T[]): T {
  const [item] = items;
  if (item === undefined) throw new Error("expected a non-empty list");
  return item;
}
