/**
 * Response bodies, as zod schemas: they type what the presenters build and
 * describe every field in the OpenAPI document.
 */
import { z } from "@hono/zod-openapi";
import {
  AMENDMENT_KINDS,
  CHANGE_TYPES,
  CHANGED_FIELDS,
  FILING_KINDS,
  LAPSE_SOURCES,
  LIEN_STATUSES,
  PARTY_TYPES,
} from "../domain/kinds.ts";
import { describeStatuses, ERROR_CODES } from "./errorCodes.ts";

/**
 * A strict object shape under its own name in the OpenAPI document
 * (components.schemas), so generated clients get a type for it.
 */
export function component<S extends z.ZodRawShape>(name: string, description: string, shape: S) {
  return z.strictObject(shape).openapi(name, { description });
}

export const timestamp = z
  .string()
  .openapi({ format: "date-time", description: "ISO 8601 UTC.", example: "2026-09-08T14:03:11Z" });

/** Address parts are as the filing office recorded them; a part it did not record is null. */
const notRecorded = " Null when the filing office did not record it.";

const addressA = component("AddressA", "An address in envelope A, as the filing office recorded it.", {
  street1: z
    .string()
    .nullable()
    .openapi({ description: `Street address.${notRecorded}` }),
  city: z
    .string()
    .nullable()
    .openapi({ description: `City.${notRecorded}` }),
  state: z
    .string()
    .nullable()
    .openapi({
      description: `Two-letter state code; for a foreign address, its region as written.${notRecorded}`,
      example: "CA",
    }),
  zip_code: z
    .string()
    .nullable()
    .openapi({
      description: `Five digits or ZIP+4 (12345-6789) for a US address; a foreign postal code as written.${notRecorded}`,
      example: "94107",
    }),
});

const addressB = component("AddressB", "An address in envelope B, with its country and a map link.", {
  ...addressA.shape,
  country: z
    .string()
    .nullable()
    .openapi({ description: `ISO 3166-1 alpha-2 country code.${notRecorded}`, example: "US" }),
  maps_url: z.string().nullable().openapi({
    format: "uri",
    description: "Map search for the recorded parts of the address; null when none was recorded.",
  }),
});

const debtorPartyA = component("DebtorPartyA", "A debtor in envelope A.", {
  name: z.string(),
  debtor_industry: z.string().openapi({
    description:
      "The debtor's industry (an `industry` filter value, or another label the filing office used). A debtor without one gets its kind, the label envelope B gives as `category`: `Individual`, or `Organization` for an organization.",
    example: "Manufacturing",
  }),
  address: addressA,
});

const securedPartyA = component("SecuredPartyA", "A secured party (lender) in envelope A.", {
  name: z.string(),
  address: addressA,
});

export const partyB = component("PartyB", "A debtor or secured party in envelope B.", {
  name: z.string(),
  type: z.enum([...PARTY_TYPES, "Secured Party"]),
  category: z.string().openapi({ description: "Debtor industry, lender kind or party kind." }),
  address: addressB,
});

const amendment = component("Amendment", "An amendment (UCC-3) of the filing.", {
  amendment_financing_number: z.string(),
  amendment_financing_date: timestamp,
  amendment_financing_type_description: z.string(),
});

const lienA = component("LienA", "A filing in envelope A.", {
  initial_financing_number: z.string(),
  initial_financing_date: timestamp,
  jurisdiction_state: z.string(),
  involved_parties: component("InvolvedPartiesA", "The debtors and secured parties of a filing in envelope A.", {
    debtor_parties: z.array(debtorPartyA),
    secured_parties: z.array(securedPartyA),
  }),
});

const lienB = component("LienB", "A filing in envelope B; `amendments` where the operation says so.", {
  initial_financing_number: z.string(),
  initial_financing_date: timestamp,
  estimated_lien_lapse_date: z
    .string()
    .nullable()
    .openapi({ format: "date", description: "YYYY-MM-DD; null for a filing that does not lapse." }),
  estimated_lien_status: z.enum(LIEN_STATUSES),
  jurisdiction_state: z.string(),
  search_url: z.string().openapi({ description: "The filing state's own UCC search page." }),
  involved_parties: component("InvolvedPartiesB", "The debtors and secured parties of a filing in envelope B.", {
    debtor_parties: z.array(partyB),
    secured_parties: z.array(partyB),
  }),
  amendments: z.array(amendment).optional(),
});

/** An amendment on the public lookup: envelope B's fields and what the office recorded with it. */
const amendmentFull = component("AmendmentFull", "An amendment with its kind and what the office recorded with it.", {
  ...amendment.shape,
  amendment_kind: z.enum(AMENDMENT_KINDS).openapi({
    description:
      "What the amendment does, read from the office's description: `reinstatement` revokes an earlier termination; `other` is a kind the office names that none of the others is (its description is kept as given).",
  }),
  amendment_lapse_date: z.string().nullable().openapi({
    format: "date",
    description: "YYYY-MM-DD: the lapse date the office recorded with this amendment, if any.",
  }),
  amendment_collateral: z
    .string()
    .nullable()
    .openapi({ description: "Collateral text filed with this amendment, if any." }),
});

/** The full filing of the public lookup (GET /filings), whose fields the interface leaves open. */
export const lienFull = component(
  "LienFull",
  "A filing as the public lookup shows it: envelope B and the office's record.",
  {
    ...lienB.shape,
    estimated_lien_lapse_date: z.string().nullable().openapi({
      format: "date",
      description:
        "YYYY-MM-DD: the filing office's lapse date when it gave one (see `lapse_date_source`), else computed from the filing kind; null for a filing that does not lapse (a transmitting utility, or one its office says does not lapse: `lapse_date_source` `office`).",
    }),
    amendments: z.array(amendmentFull),
    filing_kind: z.enum(FILING_KINDS).openapi({
      description:
        "What the filing is: a UCC financing statement (`standard`, `manufactured_home`, `public_finance`, `transmitting_utility`, `agricultural_lien`) or a lien the state's UCC index carries (`state_tax_lien`, `federal_tax_lien`, `judgment_lien`, `vessel_lien`, `other_lien`).",
    }),
    lapse_date_source: z.enum(LAPSE_SOURCES).openapi({
      description:
        "`office`: the lapse date is the filing office's, as given. `estimated`: computed from the filing kind and continuations (or an office date extended by a later continuation).",
    }),
    filing_office: z.string().nullable().openapi({ description: "The filing office as the source data names it." }),
    collateral: z
      .string()
      .nullable()
      .openapi({ description: "The collateral description as filed, if the source carries it." }),
  },
);

/** The continuation of a list, in both envelopes. */
export const nextCursor = z.string().optional().openapi({
  description:
    "Opaque continuation: send it as `cursor` (instead of `page`) for the next page, which then costs what the first page does however deep it is. Absent on the last page.",
});

export const pagination = component("Pagination", "Envelope A's counted pages.", {
  current_page: z.number().int(),
  total_pages: z.number().int(),
  page_size: z.number().int().openapi({ example: 5 }),
  total_results: z.number().int(),
  next_cursor: nextCursor,
});

export const metadataA = component("ResponseMetadataA", "Envelope A's (and every error's) metadata.", {
  timestamp,
  request_id: z.string().uuid().openapi({ description: "The `x-request-id` response header." }),
});

const metadataB = component("ResponseMetadataB", "Envelope B's metadata, with its paging.", {
  page: z.number().int(),
  page_size: z.number().int().openapi({ example: 10 }),
  next_page: z.boolean(),
  next_cursor: nextCursor,
  timestamp,
  request_id: z.string().uuid(),
  data_source_last_updated: timestamp.nullable(),
  api_version: z.string().openapi({ example: "1.0.0" }),
});

export const liensA = component("LienPageA", "A page of filings in envelope A, with `pagination`.", {
  ucc_liens: z.array(lienA),
  pagination,
  response_metadata: metadataA,
});
export const liensB = component("LienPageB", "A page of filings in envelope B: no `pagination`; see `next_page`.", {
  ucc_liens: z.array(lienB),
  response_metadata: metadataB,
});
export const liensFull = component("LienPageFull", "The public lookup's page: full filings in envelope B.", {
  ucc_liens: z.array(lienFull),
  response_metadata: metadataB,
});

/**
 * The answer of an operation that takes `envelope`. The two shapes are told
 * apart by `pagination`, which only envelope A has (neither allows other
 * properties), so `"pagination" in page` narrows a generated union type.
 */
export const lienPageAOrB = z.union([liensA, liensB]).openapi({}, { unionPreferredType: "oneOf" });

const terminatedParty = component("TerminatedFilingParty", "A terminated filing's first debtor or lender.", {
  name: z.string(),
  address: addressA,
});

const terminatedFiling = component("TerminatedFiling", "A filing terminated by an amendment.", {
  initial_financing_number: z.string(),
  initial_financing_date: timestamp,
  termination_date: timestamp,
  debtor: terminatedParty,
  secured_party: terminatedParty,
});

export const terminatedList = component("TerminatedFilingPage", "A page of terminated filings (envelope A).", {
  terminated_filings: z.array(terminatedFiling),
  pagination,
  response_metadata: metadataA,
});

const knownAddress = component(
  "KnownAddress",
  "A debtor's address as the filing office recorded it: envelope A's address with its second street line, since two addresses that differ only there (suites of one building) are listed apart.",
  {
    street1: addressA.shape.street1,
    street2: z
      .string()
      .nullable()
      .openapi({ description: `Second street line (suite, floor, unit).${notRecorded}` }),
    city: addressA.shape.city,
    state: addressA.shape.state,
    zip_code: addressA.shape.zip_code,
  },
);

export const knownAddresses = component("KnownAddressPage", "A page of a debtor's addresses (envelope A).", {
  debtor_name: z.string(),
  addresses: z.array(knownAddress),
  pagination,
  response_metadata: metadataA,
});

export const associatedDebtors = component("AssociatedDebtorPage", "A page of a debtor's co-borrowers (envelope A).", {
  debtor_name: z.string(),
  debtor_state: z.string(),
  associated_debtors: z.array(
    component("AssociatedDebtor", "A co-borrower: another debtor on the debtor's filings.", {
      debtor_name: z.string(),
      address: component("AssociatedDebtorAddress", "A co-borrower's address, with its own field names.", {
        street_address_1: z.string(),
        street_address_2: z.string().nullable(),
        city: z.string(),
        state: z.string(),
        postal_code: z.string(),
      }),
    }),
  ),
  pagination,
  response_metadata: metadataA,
});

export const similarDebtors = component("SimilarDebtorPage", "A page of similar debtor names (envelope A).", {
  similar_debtors: z.array(
    component("SimilarDebtor", "A debtor name similar to the query, in one state.", {
      debtor_name: z.string().openapi({ description: "The name as most recently filed." }),
      debtor_state: z.string(),
      filing_count: z.number().int().openapi({ description: "Filings naming this debtor in this state." }),
      score: z.number().min(0).max(1).openapi({ description: "Similarity to the query, 1 being the same name." }),
    }),
  ),
  pagination,
  response_metadata: metadataA,
});

const errorCode = z.enum(ERROR_CODES).openapi("ErrorCode", {
  description: `Stable error code: ${describeStatuses()}.`,
});

const errorDetail = component("ErrorDetail", "One invalid query parameter (or request header) and why.", {
  parameter: z.string(),
  message: z.string(),
});

// Not "Error": generated code would declare a type that shadows the built-in Error class.
export const errorBody = component("ErrorBody", "The body of every error response.", {
  error: z.strictObject({
    code: errorCode,
    message: z.string().openapi({ description: "For people; it may change. Match on `code`." }),
    details: z.array(errorDetail).optional(),
  }),
  response_metadata: metadataA,
});

const change = component(
  "Change",
  "One change of the change feed: what happened to which filing, and the filing as it stands now.",
  {
    id: z.string().openapi({
      description:
        "Stable and unique: a client that sees a change twice (after a retry) can drop the second. The state and the change's number (`CA-10423`); for a state split over databases, its part and the number there (`CA/2-17`).",
      example: "CA-10423",
    }),
    type: z.enum(CHANGE_TYPES).openapi({
      description:
        "`filing.created`: a filing the service did not hold. `filing.continued`, `filing.terminated`, `filing.assigned`, `filing.reinstated` (a termination revoked), `filing.amended` (a party, collateral or other change): an amendment of that kind arrived (see `amendment`). `filing.updated`: the filing was delivered again with stored facts changed (see `changed_fields`). `filing.lapsed`: its lapse date passed.",
    }),
    recorded_at: timestamp.openapi({ description: "When the service recorded the change (the load that brought it)." }),
    occurred_at: timestamp.openapi({
      description:
        "The office's date: the filing date (`filing.created`, `filing.updated`), the amendment's date, or the lapse date (midnight UTC).",
    }),
    jurisdiction_state: z.string(),
    initial_financing_number: z.string(),
    amendment: amendmentFull
      .pick({
        amendment_financing_number: true,
        amendment_financing_date: true,
        amendment_financing_type_description: true,
        amendment_kind: true,
      })
      .openapi("ChangeAmendment", { description: "The amendment that made the change." })
      .optional(),
    changed_fields: z
      .array(z.enum(CHANGED_FIELDS))
      .optional()
      .openapi({ description: "For `filing.updated`: the fields of the filing whose stored facts changed." }),
    lien: lienB.openapi({ description: "The filing as it stands now (envelope B, with its amendments)." }),
  },
);

export const changePage = component(
  "ChangePage",
  "A page of the change feed, oldest first; resume from `next_cursor`.",
  {
    changes: z.array(change),
    response_metadata: component("ChangeFeedMetadata", "The change feed's metadata: where to resume.", {
      next_cursor: z.string().openapi({
        description:
          "Where to resume: pass it as `cursor` on the next poll. Always present, also on an empty page; it never moves past a change the client has not been given.",
      }),
      has_more: z
        .boolean()
        .openapi({ description: "Whether more changes are ready now: poll again at once rather than wait." }),
      timestamp,
      request_id: z.string().uuid(),
      data_source_last_updated: timestamp.nullable(),
      api_version: z.string().openapi({ example: "1.0.0" }),
    }),
  },
);

const stateCurrency = component("StateCurrency", "How current one state's data is.", {
  state: z.string().openapi({ example: "CA" }),
  filings: z.number().int().openapi({ description: "Filings held for the state." }),
  active_filings: z.number().int().openapi({ description: "Of those, neither terminated nor lapsed today (UTC)." }),
  last_loaded_at: timestamp.nullable().openapi({ description: "When the state's data was last loaded." }),
  data_through: z.string().nullable().openapi({
    format: "date",
    description:
      "YYYY-MM-DD: the date the filing office says its data runs through, where its feed states one; else the newest filing date loaded.",
  }),
  backfill_began_at: timestamp.nullable().openapi({
    description:
      "When the state's backfill began: its first load, whose filings the change feed does not announce (they are history, not news). Null for a state loaded before backfills were recorded.",
  }),
  backfilled_at: timestamp.nullable().openapi({
    description:
      "When the backfill completed; from then on every load of the state records its changes. Null while the backfill is under way (its loads announce nothing) or for a state loaded before backfills were recorded.",
  }),
});

export const statesPage = component("StatePage", "Every state the service holds, and how current its data is.", {
  states: z.array(stateCurrency),
  response_metadata: component("StatesMetadata", "The metadata of the states list.", {
    timestamp,
    request_id: z.string().uuid(),
    api_version: z.string().openapi({ example: "1.0.0" }),
  }),
});

export type LienA = z.infer<typeof lienA>;
export type LienB = z.infer<typeof lienB>;
export type LienFull = z.infer<typeof lienFull>;
