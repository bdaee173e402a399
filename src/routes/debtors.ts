/** Endpoints 5 to 8: a debtor's filings, known addresses, co-borrowers and similar names. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { debtorNameKey } from "../domain/names.ts";
import { SIMILARITY_THRESHOLD } from "../domain/similarity.ts";
import type { AppEnv } from "../http/context.ts";
import { debtorAddressesQuery, debtorAssociatedQuery, debtorSearchQuery, similarQuery } from "../http/params.ts";
import { associatedDebtor, envelopeA, knownAddress, lienPageA, similarDebtor } from "../http/present.ts";
import { associatedDebtors, knownAddresses, liensA, similarDebtors } from "../http/responses.ts";
import { withDb } from "../queries/db.ts";
import * as debtorQueries from "../queries/debtors.ts";
import { byDebtorName, fetchCountedPage } from "../queries/filings.ts";
import { MAX_CANDIDATES, similarNames } from "../queries/similar.ts";
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

export const debtorSimilarRoute = lookupRoute({
  path: "/debtors/search-similar",
  tags: ["Debtors"],
  summary: "Debtor names similar to a name",
  description: `Debtor names ranked by similarity to \`name\`, despite typos, word order, punctuation and legal endings: each with its state, the number of filings naming it there, and a score from 0 to 1 (1 is the same name under UCC search logic). Abbreviations such as Mfg, Svcs, Intl or Bros count as their long forms, and an individual may be written last name first, with or without a middle initial. Names scoring below ${SIMILARITY_THRESHOLD} are left out. Candidates come from bounded index probes (one misspelled, abbreviated, missing or extra word is tolerated), so a request ranks at most ${MAX_CANDIDATES} names. Envelope A.`,
  query: similarQuery,
  schema: similarDebtors,
});

export function registerDebtorRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(debtorSimilarRoute, async (c) => {
    const q = c.req.valid("query");
    const ranked = await withDb(c, (db) => similarNames(db, { name: q.name, state: q.state }));
    const start = (q.page - 1) * PAGE_SIZE_A;
    return c.json(
      {
        similar_debtors: ranked.slice(start, start + PAGE_SIZE_A).map(similarDebtor),
        ...envelopeA(c, q.page, PAGE_SIZE_A, ranked.length),
      },
      200,
    );
  });

  app.openapi(debtorSearchRoute, async (c) => {
    const q = c.req.valid("query");
    const window = { page: q.page, size: PAGE_SIZE_A };
    const filter = { nameKey: debtorNameKey(q.name), state: q.state };
    const page = await withDb(c, (db) => fetchCountedPage(db, byDebtorName(db, filter), window));
    return c.json(lienPageA(c, window, page), 200);
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
