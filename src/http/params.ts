/**
 * Query parameters of every endpoint: one zod schema each, which validates
 * and normalizes the request, types the handler's input and documents the
 * parameter in the OpenAPI description.
 */
import { z } from "@hono/zod-openapi";
import { canonicalIndustry, INDUSTRIES } from "../domain/industries.ts";
import { FILING_NUMBER, MAX_FILING_NUMBER_LENGTH, MAX_NAME_LENGTH, US_ZIP } from "../domain/limits.ts";
import { debtorNameKey, securedNameWords } from "../domain/names.ts";
import { isStateCode, STATE_CODES } from "../domain/states.ts";

export const MAX_PAGE = 10_000;

/** A single text value: a parameter repeated in the query string is an error. */
function text(what: string) {
  return z.string({
    error: (issue) => (issue.input === undefined ? "is required" : `must be given once, as ${what}`),
  });
}

/** Treats an empty value (`?industry=`) as absent. */
function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (v === "" ? undefined : v), schema.optional());
}

export const state = text("a two-letter state code")
  .trim()
  .toUpperCase()
  .refine(isStateCode, { error: "must be a two-letter US state or territory code, such as CA" })
  .openapi({
    description: "Two-letter US state or territory code, case-insensitive.",
    example: "CA",
    enum: STATE_CODES,
  });

export const page = z.coerce
  .number({ error: `must be an integer from 1 to ${MAX_PAGE}` })
  .int({ error: `must be an integer from 1 to ${MAX_PAGE}` })
  .min(1, { error: `must be an integer from 1 to ${MAX_PAGE}` })
  .max(MAX_PAGE, { error: `must be an integer from 1 to ${MAX_PAGE}` })
  .default(1)
  .openapi({ type: "integer", description: "Page number, from 1.", example: 1 });

export const industry = optional(
  text("a comma-separated list of industries")
    .transform((raw, ctx) => {
      const out = new Set<string>();
      for (const [i, label] of raw.split(",").entries()) {
        const found = canonicalIndustry(label);
        if (found) out.add(found);
        else {
          ctx.addIssue({
            code: "custom",
            message: `item ${i + 1} is not an allowed industry; allowed: ${INDUSTRIES.join(", ")}`,
          });
        }
      }
      return [...out];
    })
    .openapi({
      description: `Comma-separated debtor industries, case-insensitive. Allowed: ${INDUSTRIES.join("; ")}.`,
      example: "Construction & Trades,Manufacturing",
    }),
);

export const name = text("a name")
  .trim()
  .min(1, { error: "is required", abort: true })
  .max(MAX_NAME_LENGTH, { error: `must be at most ${MAX_NAME_LENGTH} characters` });

/** An exact debtor name; it must leave a match key once noise is removed. */
export const debtorName = name
  .refine((n) => debtorNameKey(n) !== "", { error: "must contain a letter or digit" })
  .openapi({
    description:
      "Exact debtor name under UCC standard search logic: case, accents, punctuation, spaces, a leading 'The' and endings such as Inc or LLC are ignored; individuals match by last, first and middle name ('John Smith' or 'Smith, John').",
    example: "Acme Construction LLC",
  });

export const postalCode = text("a ZIP code")
  .trim()
  .regex(US_ZIP, { error: "must be five digits or ZIP+4 (12345-6789)" })
  .openapi({ description: "Debtor ZIP code; ZIP+4 matches on its first five digits.", example: "94107" });

export const borrowerType = optional(
  text("Organization or Individual")
    .trim()
    .toLowerCase()
    .pipe(z.enum(["organization", "individual"], { error: "must be Organization or Individual" }))
    .transform((t) => (t === "organization" ? ("Organization" as const) : ("Individual" as const)))
    .openapi({ description: "Only filings with a debtor of this type.", example: "Organization" }),
);

export function envelope(fallback: "a" | "b") {
  return optional(
    text("a or b")
      .trim()
      .toLowerCase()
      .pipe(z.enum(["a", "b"], { error: "must be a or b" })),
  )
    .transform((e) => e ?? fallback)
    .openapi({ description: `Response shape: envelope A or B. Default ${fallback}.` });
}

export const recentByStateQuery = z.object({ state, industry, page });
export const recentByPostalCodeQuery = z.object({
  postal_code: postalCode,
  industry,
  envelope: envelope("a"),
  page,
});
export const recentBySecuredPartyQuery = z.object({
  name: name
    .refine((n) => securedNameWords(n) !== "", { error: "must contain a letter or digit" })
    .openapi({
      description: "Secured party name: case-insensitive, matching whole leading words.",
      example: "Wells Fargo",
    }),
  state,
  borrower_type: borrowerType,
  envelope: envelope("b"),
  page,
});
export const recentlyTerminatedQuery = z.object({ state, page });
export const debtorSearchQuery = z.object({ name: debtorName, state, page });
export const debtorAddressesQuery = z.object({ name: debtorName, page });
export const debtorAssociatedQuery = z.object({ name: debtorName, state, page });

export const similarQuery = z.object({
  name: debtorName,
  state: optional(state).openapi({ description: "Only debtors filed in this state. Default: every state." }),
  page,
});

export const filingNumber = text("a filing number")
  .trim()
  .regex(FILING_NUMBER, {
    error: `must be a filing number: 1 to ${MAX_FILING_NUMBER_LENGTH} characters, none of them control characters`,
  })
  .openapi({
    description: "The initial financing statement's number, as the state issued it.",
    example: "U260000013194",
  });

export const filingLookupQuery = z.object({
  initial_financing_number: filingNumber,
  state: optional(state).openapi({ description: "The filing's state, when the number alone is ambiguous." }),
  page,
});
