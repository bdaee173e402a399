/**
 * The lien report's body (GET /debtors/report), as zod schemas: they type
 * what src/report/present.ts builds and describe it in the OpenAPI document.
 */
import { z } from "@hono/zod-openapi";
import { COLLATERAL_CATEGORIES } from "../domain/collateral.ts";
import { FILING_KINDS } from "../domain/kinds.ts";
import { SECURED_PARTY_KINDS } from "../domain/securedPartyKinds.ts";
import { component, lienFull, metadataA, nextCursor, partyB, timestamp } from "../http/responses.ts";

const day = (description: string) => z.string().nullable().openapi({ format: "date", description });

const count = (description: string) => z.number().int().nonnegative().openapi({ description });

/** One count per value of `values`, every value present (zero when none). */
function countsBy<const T extends readonly [string, ...string[]]>(name: string, description: string, values: T) {
  return component(
    name,
    description,
    Object.fromEntries(values.map((v) => [v, z.number().int().nonnegative()])) as Record<T[number], z.ZodNumber>,
  );
}

const securedPartyKind = z.enum(SECURED_PARTY_KINDS).openapi({
  description:
    "What the secured party is, read from its name alone, so a name has one kind everywhere; the first of these that applies: `representative` (a filing service that files for an undisclosed lender, or any name \"as representative\"), `government` (the IRS, the United States, a state's or city's revenue or labor department, the SBA), `credit_union`, `bank`, `equipment_finance`, `funding_company` (merchant cash advance and other funding companies), then `other`.",
});

const category = z.enum(COLLATERAL_CATEGORIES);

const reportState = component("ReportState", "A state the report searched.", {
  state: z.string().openapi({ example: "CA" }),
  records_through: day(
    "The date the state's records run through, as `/states` reports it (`data_through`); null where the service holds nothing of the state.",
  ),
  filings: count("Filings matched in the state."),
});

const header = component("ReportHeader", "What was searched, where, and how current the answer is.", {
  id: z
    .string()
    .openapi({ description: "Identifies this report: the same on each of its pages, new on every report." }),
  generated_at: timestamp,
  name: z.string().openapi({ description: "The name as submitted." }),
  name_searched: z.array(z.string()).openapi({
    description:
      "The normalized keys searched, as the search logic reads the name: its organization key, then each reading as an individual (`last, first [middle]`, `*` where any name matches).",
  }),
  search_logic: component("SearchLogic", "How names are matched.", {
    description: z.string(),
    url: z.string().openapi({
      format: "uri-reference",
      description:
        "The API reference's section that explains it (`/docs#/Debtors/searchDebtorFilings`), a path on this service.",
    }),
  }),
  states: z.array(reportState),
  changes_cursor: z.string().openapi({
    description:
      "A cursor of `/filings/changes` at the moment of the report: `GET /filings/changes?debtor_name=NAME&cursor=CHANGES_CURSOR` (with `state` when the report named exactly one: that cursor holds its shards only, and without the `state` is a 400) returns the changes recorded after the report and nothing before.",
  }),
});

const securedOnFiling = component("ReportSecuredParty", "A secured party of a filing, with its kind.", {
  name: z.string(),
  kind: securedPartyKind,
});

const summary = component("ReportSummary", "Counts over every matched filing, not just the page.", {
  filings: count("Matched filings, of any status."),
  active: count("Filings neither terminated nor lapsed today."),
  lapsed: count("Filings past their lapse date, not terminated."),
  terminated: count("Filings terminated by an amendment."),
  active_by_kind: countsBy("ActiveByKind", "Active filings by `filing_kind`.", FILING_KINDS),
  active_secured_parties: z
    .array(
      component("ActiveSecuredParty", "A secured party named on active filings.", {
        name: z.string().openapi({ description: "As filed." }),
        kind: securedPartyKind,
        filings: count("Active filings naming it."),
      }),
    )
    .openapi({ description: "Most filings first, then by name." }),
  blanket_liens: count("Active filings whose collateral is all assets (`collateral_categories` `all_assets`)."),
  collateral_categories: countsBy(
    "ActiveByCollateralCategory",
    "Active filings whose current collateral names each category.",
    COLLATERAL_CATEGORIES,
  ),
  filed_last_30_days: count("Filings (any status) filed in the 30 days ending today."),
  filed_last_90_days: count("Filings filed in the 90 days ending today."),
  filed_last_180_days: count("Filings filed in the 180 days ending today."),
  funding_company_filings_last_90_days: count(
    "Filings of the last 90 days with a secured party of kind `funding_company`: a stack of merchant cash advances shows here.",
  ),
  first_active_filing: component(
    "FirstActiveFiling",
    "The oldest active filing: first to file is usually first in priority.",
    {
      initial_financing_number: z.string(),
      jurisdiction_state: z.string(),
      initial_financing_date: timestamp,
      secured_parties: z.array(securedOnFiling),
    },
  ).nullable(),
  next_lapse_date: day("The soonest lapse date among active filings; null when none lapses."),
});

const reportFiling = component(
  "ReportFiling",
  "A matched filing: everything `GET /filings` gives, with its collateral categories, VINs and secured party kinds.",
  {
    ...lienFull.shape,
    involved_parties: component("ReportParties", "The debtors and secured parties of a filing.", {
      debtor_parties: z.array(partyB),
      secured_parties: z.array(
        component("ReportPartyB", "A secured party with its kind.", { ...partyB.shape, kind: securedPartyKind }),
      ),
    }),
    collateral_categories: z.array(category).openapi({
      description:
        "Categories its current collateral names (the latest amendment restating collateral, else the filing's).",
    }),
    collateral_terms: z.record(z.string(), z.array(z.string())).openapi({
      description: "By category, the phrases of the collateral text that named it.",
    }),
    vins: z.array(z.string()).openapi({
      description:
        "17-character vehicle identification numbers in the collateral whose check digit is valid, upper-cased.",
    }),
  },
);

export const reportBody = component(
  "LienReport",
  "A lien report: its header and summary, and a page of its filings, oldest first.",
  {
    report: header,
    summary,
    filings: z.array(reportFiling),
    next_cursor: nextCursor,
    response_metadata: metadataA,
  },
);

export type ReportFiling = z.infer<typeof reportFiling>;
export type ReportSummary = z.infer<typeof summary>;
