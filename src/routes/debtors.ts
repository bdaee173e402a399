/** /debtors/*: a debtor's filings, known addresses, co-borrowers and similar names. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { SIMILARITY_THRESHOLD } from "../domain/similarity.ts";
import type { AppEnv } from "../http/context.ts";
import { shardReader, stateReader } from "../http/d1.ts";
import {
  addressPosition,
  countedMore,
  filingCursor,
  filingPosition,
  listOf,
  nextCursor,
  rankCursor,
  rankPosition,
  rankWindow,
  startOf,
} from "../http/paging.ts";
import { debtorAddressesQuery, debtorAssociatedQuery, debtorSearchQuery, similarQuery } from "../http/params.ts";
import { associatedDebtor, envelopeA, knownAddress, lienPageA, similarDebtor } from "../http/present.ts";
import { associatedDebtors, knownAddresses, liensA, similarDebtors } from "../http/responses.ts";
import { associatedAcross, countedPageAcross, knownAddressesAcross, similarNamesAcross } from "../queries/fanout.ts";
import { byDebtorName, type ListPosition, windowOf } from "../queries/filings.ts";
import { MAX_CANDIDATES } from "../queries/similar.ts";
import { lookupRoute, PAGE_SIZE_A } from "./define.ts";

const exactName =
  "Names match under the UCC standard search logic filing offices publish: case, accents, the form letters are written in (full-width, mathematical), punctuation and spaces are ignored, `&` reads as `and`, and a leading `The` and endings such as Inc, LLC, N.A., Assn, Co-op, Credit Union, GP or JV are dropped. The name is also read as an individual's (`First Middle Last`, whose last two words may also be one last name written without its hyphen, or `Last, First Middle` with a comma; suffixes ignored): it finds individual debtors with the same last name, the same first name or its initial (an initial finds every first name it begins), and any middle name when none is given, else a middle name that is the same, its initial, or (for an initial) begins with it.";

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
  // With its slash, as the interface's sample request and the README write it (the other form works too).
  path: "/debtors/associated/",
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
    const list = listOf(debtorSimilarRoute.path, q);
    const start = await startOf(list, q, rankPosition);
    const window = rankWindow(start, PAGE_SIZE_A);
    // With a state, its shard (or each part of a split state); without, every shard.
    const reader = q.state ? stateReader(c, q.state) : shardReader(c);
    const ranked = await similarNamesAcross(reader, q.name, q.state);
    // The ranking is computed whole for every page (docs/api/paging.md): a cursor carries its rank.
    const shown = ranked.slice(window.offset, window.offset + window.size);
    const next = rankCursor(list, window, shown.length, ranked.length);
    return c.json({ similar_debtors: shown.map(similarDebtor), ...envelopeA(c, window, ranked.length, next) }, 200);
  });

  app.openapi(debtorSearchRoute, async (c) => {
    const q = c.req.valid("query");
    const list = listOf(debtorSearchRoute.path, q);
    const start = await startOf(list, q, filingPosition);
    const window = windowOf(start, PAGE_SIZE_A);
    const build = (after?: ListPosition) => byDebtorName({ name: q.name, state: q.state, after });
    const page = await countedPageAcross(stateReader(c, q.state), build, window, start.after);
    const next = filingCursor(list, window, countedMore(window, page.total), page.items);
    return c.json(lienPageA(c, window, page, next), 200);
  });

  app.openapi(debtorAddressesRoute, async (c) => {
    const q = c.req.valid("query");
    const list = listOf(debtorAddressesRoute.path, q);
    const start = await startOf(list, q, addressPosition);
    const window = windowOf(start, PAGE_SIZE_A);
    // A debtor's addresses come from its filings in any state: every shard.
    const { rows, total, last } = await knownAddressesAcross(shardReader(c), q.name, window, start.after);
    const next = nextCursor(list, window, countedMore(window, total) ? last : undefined);
    return c.json(
      { debtor_name: q.name, addresses: rows.map(knownAddress), ...envelopeA(c, window, total, next) },
      200,
    );
  });

  app.openapi(debtorAssociatedRoute, async (c) => {
    const q = c.req.valid("query");
    const list = listOf(debtorAssociatedRoute.path, q);
    const start = await startOf(list, q, rankPosition);
    // Grouped whole on every page from the found debtors' links: a cursor carries its rank.
    const window = rankWindow(start, PAGE_SIZE_A);
    const { rows, total } = await associatedAcross(stateReader(c, q.state), { name: q.name, state: q.state }, window);
    const next = rankCursor(list, window, rows.length, total);
    return c.json(
      {
        debtor_name: q.name,
        debtor_state: q.state,
        associated_debtors: rows.map(associatedDebtor),
        ...envelopeA(c, window, total, next),
      },
      200,
    );
  });
}
