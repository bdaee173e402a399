/**
 * /filings/*: recent filings by state and by postal code, recent
 * terminations; and GET /filings, the public lookup of one filing by number.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context.ts";
import { shardReader, stateReader, withFiling } from "../http/d1.ts";
import {
  countedMore,
  crossPosition,
  filingCursor,
  filingPosition,
  listOf,
  nextCursor,
  startOf,
} from "../http/paging.ts";
import {
  filingLookupQuery,
  recentByPostalCodeQuery,
  recentByStateQuery,
  recentlyTerminatedQuery,
} from "../http/params.ts";
import { envelopeA, lienPageA, lienPageB, lienPageFull, terminatedFiling } from "../http/present.ts";
import { lienPageAOrB, liensA, liensFull, terminatedList } from "../http/responses.ts";
import { countedPageAcross, openPageAcross } from "../queries/fanout.ts";
import {
  byNumber,
  fetchOpenPage,
  type ListedFilingWithParties,
  type ListPosition,
  positionOf,
  recentByPostalCode,
  recentByState,
  recentlyTerminated,
  wholeFilings,
  windowOf,
} from "../queries/filings.ts";
import { lookupRoute, PAGE_SIZE_A, PAGE_SIZE_B, recentSince } from "./define.ts";

export const recentByStateRoute = lookupRoute({
  operationId: "listRecentFilingsByState",
  path: "/filings/recent-by-state",
  tags: ["Filings"],
  summary: "Recent filings in a state",
  description:
    "Filings of the last 90 days whose jurisdiction is `state`, newest first, optionally only those with a debtor in one of the given industries. Envelope A.",
  query: recentByStateQuery,
  examples: { state: "CA" },
  schema: liensA,
});

export const recentByPostalCodeRoute = lookupRoute({
  operationId: "listRecentFilingsByPostalCode",
  path: "/filings/recent-by-postal-code",
  tags: ["Filings"],
  summary: "Recent filings by debtor postal code",
  description:
    "Filings of the last 90 days with a debtor located in the ZIP code (first five digits), newest first. Envelope A by default; `envelope=b` for envelope B.",
  query: recentByPostalCodeQuery,
  examples: { postal_code: "90010" },
  schema: lienPageAOrB,
});

export const recentlyTerminatedRoute = lookupRoute({
  operationId: "listRecentlyTerminatedFilings",
  path: "/filings/recently-terminated",
  tags: ["Filings"],
  summary: "Recently terminated filings in a state",
  description:
    "Filings in `state` terminated by an amendment in the last 90 days, most recent termination first. Envelope A.",
  query: recentlyTerminatedQuery,
  examples: { state: "CA" },
  schema: terminatedList,
});

export const filingLookupRoute = lookupRoute({
  access: "public",
  operationId: "lookupFiling",
  path: "/filings",
  tags: ["Filings"],
  summary: "One filing by number (public)",
  description:
    "The filing with this initial financing number, with its parties and amendments, in envelope B. Numbers are unique only within a state: without `state`, every state's filing with the number is listed. An unknown number is a 200 with an empty list. Each filing also carries what the filing office recorded beyond envelope B: `filing_kind` (UCC filing or tax or judgment lien), `lapse_date_source` (office or estimated), `filing_office`, `collateral`, and each amendment's kind. No API key; limited to 60 requests a minute per client address.",
  query: filingLookupQuery,
  examples: { initial_financing_number: "00001434" },
  schema: liensFull,
});

export function registerFilingRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(filingLookupRoute, async (c) => {
    const q = c.req.valid("query");
    const list = listOf(filingLookupRoute.path, q);
    const filter = { number: q.initial_financing_number, state: q.state };
    // The public lookup shows each filing whole (lienFull): the rest of its columns and its amendments'.
    const options = { amendments: true, reading: "whole" } as const;
    // With a state, the filing's shard (its part's, of a split state); without, every shard.
    if (q.state) {
      const start = await startOf(list, q, filingPosition);
      const window = windowOf(start, PAGE_SIZE_B);
      const page = await withFiling(c, q.state, q.initial_financing_number, (db) =>
        fetchOpenPage(db, byNumber({ ...filter, after: start.after }), window, { ...options, state: q.state }),
      );
      const whole = { ...page, items: wholeFilings(page.items) };
      return c.json(lienPageFull(c, window, whole, filingCursor(list, window, page.hasMore, page.items)), 200);
    }
    const start = await startOf(list, q, crossPosition);
    const window = windowOf(start, PAGE_SIZE_B);
    const page = await openPageAcross(
      shardReader(c),
      (after) => byNumber({ ...filter, after }),
      window,
      options,
      start.after,
    );
    const whole = { ...page, items: wholeFilings(page.items) };
    return c.json(lienPageFull(c, window, whole, nextCursor(list, window, page.hasMore ? page.last : undefined)), 200);
  });

  app.openapi(recentByStateRoute, async (c) => {
    const q = c.req.valid("query");
    const list = listOf(recentByStateRoute.path, q);
    const start = await startOf(list, q, filingPosition);
    const window = windowOf(start, PAGE_SIZE_A);
    const filter = { state: q.state, since: recentSince(c), industries: q.industry };
    // The state's shard, or each part of a split state, merged.
    const build = (after?: ListPosition) => recentByState({ ...filter, after });
    const page = await countedPageAcross(stateReader(c, q.state), build, window, start.after);
    const next = filingCursor(list, window, countedMore(window, page.total), page.items);
    return c.json(lienPageA(c, window, page, next), 200);
  });

  app.openapi(recentByPostalCodeRoute, async (c) => {
    const q = c.req.valid("query");
    const list = listOf(recentByPostalCodeRoute.path, q);
    const start = await startOf(list, q, crossPosition);
    const filter = { zip5: q.postal_code.slice(0, 5), since: recentSince(c), industries: q.industry };
    // A ZIP code's debtors file in any state: every shard.
    const build = (after?: ListPosition) => recentByPostalCode({ ...filter, after });
    if (q.envelope === "b") {
      const window = windowOf(start, PAGE_SIZE_B);
      const page = await openPageAcross(shardReader(c), build, window, { amendments: false }, start.after);
      const next = nextCursor(list, window, page.hasMore ? page.last : undefined);
      return c.json(lienPageB(c, window, page, false, next), 200);
    }
    const window = windowOf(start, PAGE_SIZE_A);
    const page = await countedPageAcross(shardReader(c), build, window, start.after);
    const next = nextCursor(list, window, countedMore(window, page.total) ? page.last : undefined);
    return c.json(lienPageA(c, window, page, next), 200);
  });

  app.openapi(recentlyTerminatedRoute, async (c) => {
    const q = c.req.valid("query");
    const list = listOf(recentlyTerminatedRoute.path, q);
    const start = await startOf(list, q, filingPosition);
    const window = windowOf(start, PAGE_SIZE_A);
    const filter = { state: q.state, since: recentSince(c) };
    const build = (after?: ListPosition) => recentlyTerminated({ ...filter, after });
    const { items, total } = await countedPageAcross(stateReader(c, q.state), build, window, start.after);
    const byTermination = (item: ListedFilingWithParties) => positionOf(item, true);
    const next = filingCursor(list, window, countedMore(window, total), items, byTermination);
    return c.json({ terminated_filings: items.map(terminatedFiling), ...envelopeA(c, window, total, next) }, 200);
  });
}
