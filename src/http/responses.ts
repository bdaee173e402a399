/**
 * Response bodies, as zod schemas: they type what the presenters build and
 * describe every field in the OpenAPI document.
 */
import { z } from "@hono/zod-openapi";
import { AMENDMENT_KINDS, FILING_KINDS, LAPSE_SOURCES } from "../db/schema.ts";

const timestamp = z.string().openapi({ description: "ISO 8601 UTC.", example: "2026-09-08T14:03:11Z" });

/** Address parts are as the filing office recorded them; a part it did not record is null. */
const notRecorded = " Null when the filing office did not record it.";

export const addressA = z.strictObject({
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

export const addressB = addressA.extend({
  country: z
    .string()
    .nullable()
    .openapi({ description: `ISO 3166-1 alpha-2 country code.${notRecorded}`, example: "US" }),
  maps_url: z
    .string()
    .nullable()
    .openapi({ description: "Map search for the recorded parts of the address; null when none was recorded." }),
});

export const debtorPartyA = z.strictObject({
  name: z.string(),
  debtor_industry: z.string().nullable(),
  address: addressA,
});

export const securedPartyA = z.strictObject({ name: z.string(), address: addressA });

export const partyB = z.strictObject({
  name: z.string(),
  type: z.enum(["Individual", "Organization", "Secured Party"]),
  category: z.string().openapi({ description: "Debtor industry, lender kind or party kind." }),
  address: addressB,
});

export const amendment = z.strictObject({
  amendment_financing_number: z.string(),
  amendment_financing_date: timestamp,
  amendment_financing_type_description: z.string(),
});

export const lienA = z.strictObject({
  initial_financing_number: z.string(),
  initial_financing_date: timestamp,
  jurisdiction_state: z.string(),
  involved_parties: z.strictObject({
    debtor_parties: z.array(debtorPartyA),
    secured_parties: z.array(securedPartyA),
  }),
});

export const lienB = z.strictObject({
  initial_financing_number: z.string(),
  initial_financing_date: timestamp,
  estimated_lien_lapse_date: z
    .string()
    .nullable()
    .openapi({ description: "YYYY-MM-DD; null for a filing that does not lapse." }),
  estimated_lien_status: z.enum(["Active", "Lapsed", "Terminated"]),
  jurisdiction_state: z.string(),
  search_url: z.string().openapi({ description: "The filing state's own UCC search page." }),
  involved_parties: z.strictObject({
    debtor_parties: z.array(partyB),
    secured_parties: z.array(partyB),
  }),
  amendments: z.array(amendment).optional(),
});

/** An amendment on the public lookup: envelope B's fields and what the office recorded with it. */
export const amendmentFull = amendment.extend({
  amendment_kind: z.enum(AMENDMENT_KINDS).openapi({
    description:
      "What the amendment does, read from the office's description: `reinstatement` revokes an earlier termination; `other` is a kind the office names that none of the others is (its description is kept as given).",
  }),
  amendment_lapse_date: z
    .string()
    .nullable()
    .openapi({ description: "YYYY-MM-DD: the lapse date the office recorded with this amendment, if any." }),
  amendment_collateral: z
    .string()
    .nullable()
    .openapi({ description: "Collateral text filed with this amendment, if any." }),
});

/** The full filing of the public lookup (endpoint 9), whose fields the interface leaves open. */
export const lienFull = lienB.extend({
  estimated_lien_lapse_date: z.string().nullable().openapi({
    description:
      "YYYY-MM-DD: the filing office's lapse date when it gave one (see `lapse_date_source`), else computed from the filing kind; null for a filing that does not lapse.",
  }),
  amendments: z.array(amendmentFull),
  filing_kind: z.enum(FILING_KINDS).openapi({
    description:
      "What the filing is: a UCC financing statement (`standard`, `manufactured_home`, `public_finance`, `transmitting_utility`, `agricultural_lien`) or a lien the state's UCC index carries (`state_tax_lien`, `federal_tax_lien`, `judgment_lien`, `other_lien`).",
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
});

export const pagination = z.strictObject({
  current_page: z.number().int(),
  total_pages: z.number().int(),
  page_size: z.number().int().openapi({ example: 5 }),
  total_results: z.number().int(),
});

export const metadataA = z.strictObject({
  timestamp,
  request_id: z.string().uuid(),
});

export const metadataB = z.strictObject({
  page: z.number().int(),
  page_size: z.number().int().openapi({ example: 10 }),
  next_page: z.boolean(),
  timestamp,
  request_id: z.string().uuid(),
  data_source_last_updated: timestamp.nullable(),
  api_version: z.string().openapi({ example: "1.0.0" }),
});

export const liensA = z.strictObject({ ucc_liens: z.array(lienA), pagination, response_metadata: metadataA });
export const liensB = z.strictObject({ ucc_liens: z.array(lienB), response_metadata: metadataB });
export const liensFull = z.strictObject({ ucc_liens: z.array(lienFull), response_metadata: metadataB });

export const terminatedFiling = z.strictObject({
  initial_financing_number: z.string(),
  initial_financing_date: timestamp,
  termination_date: timestamp,
  debtor: z.strictObject({ name: z.string(), address: addressA }),
  secured_party: z.strictObject({ name: z.string(), address: addressA }),
});

export const terminatedList = z.strictObject({
  terminated_filings: z.array(terminatedFiling),
  pagination,
  response_metadata: metadataA,
});

export const knownAddresses = z.strictObject({
  debtor_name: z.string(),
  addresses: z.array(addressA),
  pagination,
  response_metadata: metadataA,
});

export const associatedDebtors = z.strictObject({
  debtor_name: z.string(),
  debtor_state: z.string(),
  associated_debtors: z.array(
    z.strictObject({
      debtor_name: z.string(),
      address: z.strictObject({
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

export const similarDebtors = z.strictObject({
  similar_debtors: z.array(
    z.strictObject({
      debtor_name: z.string().openapi({ description: "The name as most recently filed." }),
      debtor_state: z.string(),
      filing_count: z.number().int().openapi({ description: "Filings naming this debtor in this state." }),
      score: z.number().min(0).max(1).openapi({ description: "Similarity to the query, 1 being the same name." }),
    }),
  ),
  pagination,
  response_metadata: metadataA,
});

export const errorBody = z.strictObject({
  error: z.strictObject({
    code: z.enum([
      "invalid_parameter",
      "missing_api_key",
      "invalid_api_key",
      "not_found",
      "method_not_allowed",
      "rate_limited",
      "internal_error",
      "service_unavailable",
    ]),
    message: z.string(),
    details: z.array(z.strictObject({ parameter: z.string(), message: z.string() })).optional(),
  }),
  response_metadata: metadataA,
});

export type LienA = z.infer<typeof lienA>;
export type LienB = z.infer<typeof lienB>;
export type LienFull = z.infer<typeof lienFull>;
