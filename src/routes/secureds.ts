/** /secureds/recent-by-secured-party: recent filings by secured party (lender) name within a state. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context.ts";
import { stateReader } from "../http/d1.ts";
import { countedMore, filingCursor, filingPosition, listOf, startOf } from "../http/paging.ts";
import { recentBySecuredPartyQuery } from "../http/params.ts";
import { lienPageA, lienPageB } from "../http/present.ts";
import { lienPageAOrB } from "../http/responses.ts";
import { countedPartsAcross, openPartsAcross } from "../queries/fanout.ts";
import { type ListPosition, windowOf } from "../queries/filings.ts";
import { lenderCountedPage, lenderOpenPage } from "../queries/lenders.ts";
import { lookupRoute, PAGE_SIZE_A, PAGE_SIZE_B, recentSince } from "./define.ts";

export const recentBySecuredPartyRoute = lookupRoute({
  operationId: "listRecentFilingsBySecuredParty",
  path: "/secureds/recent-by-secured-party",
  tags: ["Secured parties"],
  summary: "Recent filings by secured party",
  description:
    "Filings of the last 90 days in `state` with a secured party whose name equals `name` or starts with it as whole words, case-insensitively (`wells fargo` finds `WELLS FARGO BANK, N.A.`). Envelope B with amendments by default; `envelope=a` for envelope A.",
  query: recentBySecuredPartyQuery,
  examples: { name: "Wells Fargo", state: "CA" },
  schema: lienPageAOrB,
});

export function registerSecuredRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(recentBySecuredPartyRoute, async (c) => {
    const q = c.req.valid("query");
    const list = listOf(recentBySecuredPartyRoute.path, q);
    const start = await startOf(list, q, filingPosition);
    const lender = { name: q.name, state: q.state, since: recentSince(c), borrowerType: q.borrower_type };
    // The state's shard, or each part of a split state, merged.
    const reader = stateReader(c, q.state);
    const from = (after?: ListPosition) => ({ ...lender, after });
    if (q.envelope === "a") {
      const window = windowOf(start, PAGE_SIZE_A);
      const page = await countedPartsAcross(
        reader,
        (db, part, after) => lenderCountedPage(db, from(after), part),
        window,
        start.after,
      );
      const next = filingCursor(list, window, countedMore(window, page.total), page.items);
      return c.json(lienPageA(c, window, page, next), 200);
    }
    const window = windowOf(start, PAGE_SIZE_B);
    const page = await openPartsAcross(
      reader,
      (db, part, after) => lenderOpenPage(db, from(after), part),
      window,
      start.after,
    );
    const next = filingCursor(list, window, page.hasMore, page.items);
    return c.json(lienPageB(c, window, page, true, next), 200);
  });
}
