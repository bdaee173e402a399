/** Endpoints 5, 6 and 7: a debtor's filings, known addresses and co-borrowers. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { debtorNameKey } from "../domain/names.ts";
import type { AppEnv } from "../http/context.ts";
import { debtorAddressesQuery, debtorAssociatedQuery, debtorSearchQuery } from "../http/params.ts";
import { associatedDebtor, envelopeA, knownAddress, lienA } from "../http/present.ts";
import { associatedDebtors, knownAddresses, liensA } from "../http/responses.ts";
import { withDb } from "../queries/db.ts";
import * as debtorQueries from "../queries/debtors.ts";
import { byDebtorName, fetchCountedPage } from "../queries/filings.ts";
import { lookupRoute, PAGE_SIZE_A } from "./define.ts";

const exactName =
  "Names match under UCC standard search logic: case, punctuation and spaces are ignored, `&` reads as `and`, and a leading `The` and endings such as Inc, Corp, Co, LLC, LP or Ltd are dropped.";

export const debtorSearchRoute = lookupRoute({
  path: "/debtors/search",
  tags: ["Debtors"],
  summary: "All filings of a debtor",
  description: `Every filing, of any date, in \`state\` naming the debtor, newest first. ${exactName} Envelope A.`,
  query: debtorSearchQuery,
  schema: liensA,
});

export const debtorAddressesRoute = lookupRoute({
  path: "/debtors/addresses",
  tags: ["Debtors"],
  summary: "Known addresses of a debtor",
  description: `The distinct addresses the debtor has filed under, in any state, most recently used first. ${exactName} Envelope A.`,
  query: debtorAddressesQuery,
  schema: knownAddresses,
});

export const debtorAssociatedRoute = lookupRoute({
  path: "/debtors/associated",
  tags: ["Debtors"],
  summary: "Co-borrowers of a debtor",
  description: `The other debtors named with the debtor on its filings in \`state\`, one entry per distinct name and address, most recent first. ${exactName} Envelope A.`,
  query: debtorAssociatedQuery,
  schema: associatedDebtors,
});

export function registerDebtorRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(debtorSearchRoute, async (c) => {
    const q = c.req.valid("query");
    const filter = { nameKey: debtorNameKey(q.name), state: q.state };
    const { items, total } = await withDb(c, (db) =>
      fetchCountedPage(db, byDebtorName(db, filter), { page: q.page, size: PAGE_SIZE_A }),
    );
    return c.json({ ucc_liens: items.map(lienA), ...envelopeA(c, q.page, PAGE_SIZE_A, total) }, 200);
  });

  app.openapi(debtorAddressesRoute, async (c) => {
    const q = c.req.valid("query");
    const { rows, total } = await withDb(c, (db) =>
      debtorQueries.knownAddresses(db, debtorNameKey(q.name), { page: q.page, size: PAGE_SIZE_A }),
    );
    return c.json(
      { debtor_name: q.name, addresses: rows.map(knownAddress), ...envelopeA(c, q.page, PAGE_SIZE_A, total) },
      200,
    );
  });

  app.openapi(debtorAssociatedRoute, async (c) => {
    const q = c.req.valid("query");
    const { rows, total } = await withDb(c, (db) =>
      debtorQueries.associatedDebtors(
        db,
        { nameKey: debtorNameKey(q.name), state: q.state },
        { page: q.page, size: PAGE_SIZE_A },
      ),
    );
    return c.json(
      {
        debtor_name: q.name,
        debtor_state: q.state,
        associated_debtors: rows.map(associatedDebtor),
        ...envelopeA(c, q.page, PAGE_SIZE_A, total),
      },
      200,
    );
  });
}
