/**
 * Response bodies, as zod schemas: they type what the presenters build and
 * describe every field in the OpenAPI document.
 */
import { z } from "@hono/zod-openapi";

const timestamp = z.string().openapi({ description: "ISO 8601 UTC.", example: "2026-09-08T14:03:11Z" });

export const addressA = z.strictObject({
  street1: z.string(),
  city: z.string(),
  state: z.string().openapi({ example: "CA" }),
  zip_code: z.string().openapi({ description: "Five digits or ZIP+4.", example: "94107" }),
});

export const addressB = addressA.extend({
  country: z.string().nullable(),
  maps_url: z.string().openapi({ description: "Map search for the address." }),
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
