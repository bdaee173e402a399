/** /debtors/*: a debtor's filings, known addresses, co-borrowers and similar names. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { SIMILARITY_THRESHOLD } from "../domain/similarity.ts";
import type { AppEnv } from "../http/context.ts";
import { shardReader, withShard } from "../http/d1.ts";
import { debtorAddressesQuery, debtorAssociatedQuery, debtorSearchQuery, similarQuery } from "../http/params.ts";
import { associatedDebtor, envelopeA, knownAddress, lienPageA, similarDebtor } from "../http/present.ts";
import { associatedDebtors, knownAddresses, liensA, similarDebtors } from "../http/responses.ts";
import * as debtorQueries from "../queries/debtors.ts";
import { knownAddressesAcross, similarNamesAcross } from "../queries/fanout.ts";
import { byDebtorName, fetchCountedPage } from "../queries/filings.ts";
import { MAX_CANDIDATES, similarNames } from "../queries/similar.ts";
import { lookupRoute, PAGE_SIZE_A } from "./define.ts";

const exactName =
  "Names match under the UCC standard search logic filing offices publish: case, accents, punctuation and spaces are ignored, `&` reads as `and`, and a leading `The` and endings such as Inc, LLC, N.A., Assn, Co-op, Credit Union, GP or JV are dropped. The name is also read as an individual's (`First Middle Last`, or `Last, First Middle` with a comma; suffixes ignored): it finds individual debtors with the same last name, the same first name or its initial (an initial finds every first name it begins), and any middle name when none is given, else a middle name that is the same, its initial, or (for an initial) begins with it.";

export const debtorSearchRoute = lookupRoute({
  operationId: "searchDebtorFilings",
  path: "/debtors/search",
  tags: ["Debtors"],
  summary: "All filings of a debtor",
  description: `Every filing, of any date, in \`state\` naming the debtor, newest first. ${exactName} Envelope A.`,
  query: debtorSearchQuery,
  examples: { name: "Harbor Manufacturing Inc", state: "CA" },
  schema: liensA,
});

export const debtorAddressesRoute = lookupRoute({
  operationId: "listDebtorAddresses",
  path: "/debtors/addresses",
  tags: ["Debtors"],
  summary: "Known addresses of a debtor",
  description: `The distinct addresses the debtor has filed under, in any state, most recently used first. ${exactName} Envelope A.`,
  query: debtorAddressesQuery,
  examples: { name: "Harbor Manufacturing Inc" },
  schema: knownAddresses,
});

export const debtorAssociatedRoute = lookupRoute({
  operationId: "listAssociatedDebtors",
  path: "/debtors/associated",
  tags: ["Debtors"],
  summary: "Co-borrowers of a debtor",
  description: `The other debtors named with the debtor on its filings in \`state\`, one entry per distinct name and address, most recent first. ${exactName} Envelope A.`,
  query: debtorAssociatedQuery,
  examples: { name: "Harbor Manufacturing Inc", state: "CA" },
  schema: associatedDebtors,
});

export const debtorSimilarRoute = lookupRoute({
  operationId: "searchSimilarDebtors",
  path: "/debtors/search-similar",
  tags: ["Debtors"],
  summary: "Debtor names similar to a name",
  description: `Debtor names ranked by similarity to \`name\`, despite typos, word order, punctuation and legal endings: each with its state, the number of filings naming it there, and a score from 0 to 1 (1 is the same name under UCC search logic). Abbreviations such as Mfg, Svcs, Intl or Bros count as their long forms, and an individual may be written last name first, with or without a middle initial, or with first and last name run together in either order ("Bettywalker"). Names scoring below ${SIMILARITY_THRESHOLD} are left out. Candidates come from bounded index probes (one misspelled, abbreviated, missing or extra word is tolerated), so a request ranks at most ${MAX_CANDIDATES} names. Envelope A.`,
  query: similarQuery,
  examples: { name: "Harbour Manufacturing" },
  schema: similarDebtors,
});

export function registerDebtorRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(debtorSimilarRoute, async (c) => {
    const q = c.req.valid("query");
    // With a state, its shard; without, every shard.
    const ranked = q.state
      ? await withShard(c, q.state, (db) => similarNames(db, { name: q.name, state: q.state }))
      : await similarNamesAcross(shardReader(c), q.name);
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
    const filter = { name: q.name, state: q.state };
    const page = await withShard(c, q.state, (db) => fetchCountedPage(db, byDebtorName(db, filter), window));
    return c.json(lienPageA(c, window, page), 200);
  });

  app.openapi(debtorAddressesRoute, async (c) => {
    const q = c.req.valid("query");
    // A debtor's addresses come from its filings in any state: every shard.
    const { rows, total } = await knownAddressesAcross(shardReader(c), q.name, { page: q.page, size: PAGE_SIZE_A });
    return c.json(
      { debtor_name: q.name, addresses: rows.map(knownAddress), ...envelopeA(c, q.page, PAGE_SIZE_A, total) },
      200,
    );
  });

  app.openapi(debtorAssociatedRoute, async (c) => {
    const q = c.req.valid("query");
    const { rows, total } = await withShard(c, q.state, (db) =>
      debtorQueries.associatedDebtors(db, { name: q.name, state: q.state }, { page: q.page, size: PAGE_SIZE_A }),
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
