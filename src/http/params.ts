/**
 * Query parameters of every endpoint: one zod schema each, which validates
 * and normalizes the request, types the handler's input and documents the
 * parameter in the OpenAPI description.
 */
import { z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { canonicalIndustry, INDUSTRIES, type Industry } from "../domain/industries.ts";
import { PARTY_TYPES } from "../domain/kinds.ts";
import { FILING_NUMBER, MAX_FILING_NUMBER_LENGTH, MAX_NAME_LENGTH, US_ZIP } from "../domain/limits.ts";
import { debtorNameKey, securedNameWords } from "../domain/names.ts";
import { isStateCode, STATE_CODES } from "../domain/states.ts";
import type { AppEnv } from "./context.ts";
import { cursorParam } from "./cursor.ts";
import { ApiError } from "./errors.ts";

const MAX_PAGE = 10_000;

/**
 * Longest request URL, in characters: the limit Cloudflare's edge enforces
 * before a Worker runs, applied here too so local runs behave the same. No
 * valid lookup comes near it (a 1,000-character name encodes to at most
 * 9 KB), and refusing a longer one before its query string is parsed keeps
 * the cost of junk (tens of thousands of repeated or empty parameters) flat.
 */
export const MAX_URL_LENGTH = 16_384;

/** Refuses an over-long URL with a 400 naming the query, before anything parses it. */
export const boundedUrl = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.url.length > MAX_URL_LENGTH) {
    throw new ApiError("invalid_parameter", "Invalid query: the URL is too long.", {
      details: [
        { parameter: "query", message: `the URL must be at most ${MAX_URL_LENGTH.toLocaleString("en-US")} characters` },
      ],
    });
  }
  await next();
});

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

const state = text("a two-letter state code")
  .trim()
  .toUpperCase()
  .refine(isStateCode, { error: "must be a two-letter US state or territory code, such as CA" })
  .openapi({
    // Any case is accepted, so the document gives a pattern; the codes are listed for people.
    type: "string",
    pattern: "^[A-Za-z]{2}$",
    description: `Two-letter US state or territory code, case-insensitive: ${STATE_CODES.join(", ")}.`,
  });

/**
 * A whole number from `min` to `max`, written in decimal digits only: no
 * sign, exponent, hex prefix, decimal point or surrounding space, so
 * `0x10`, `1e4`, `+3` and ` 3` are refused rather than read as numbers.
 * The length check runs first, so a long value is refused unread.
 */
function integer(min: number, max: number) {
  const message = `must be an integer from ${min} to ${max}, in decimal digits only`;
  return text(`an integer from ${min} to ${max}`)
    .regex(new RegExp(`^[0-9]{1,${String(max).length}}$`), { error: message, abort: true })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: message });
}

/** Absent is page 1, or the cursor's page (src/http/paging.ts, startOf): kept undefined here so `cursor` can refuse it. */
const page = optional(integer(1, MAX_PAGE)).openapi({
  type: "integer",
  minimum: 1,
  maximum: MAX_PAGE,
  default: 1,
  description: "Page number, from 1, in decimal digits. Not with `cursor`.",
});

/**
 * A paged list's parameters: `shape`, then where the page starts, `page` or
 * `cursor` (the `next_cursor` of the page before), never both.
 */
function paged<S extends z.ZodRawShape>(shape: S) {
  return z.object({ ...shape, page, cursor: optional(cursorParam) }).superRefine((q, ctx) => {
    const { page, cursor } = q as { page?: number; cursor?: string };
    if (page === undefined || cursor === undefined) return;
    for (const [parameter, other] of [
      ["page", "cursor"],
      ["cursor", "page"],
    ] as const) {
      ctx.addIssue({
        code: "custom",
        path: [parameter],
        message: `cannot be given with \`${other}\`: a cursor names its own page; send \`page\` or \`cursor\`, not both`,
      });
    }
  });
}

/** At most each industry once. */
const MAX_INDUSTRY_ITEMS = INDUSTRIES.length;
/**
 * Longest `industry` value, in characters: all 15 industries with commas
 * take 293, so this leaves room for spaces around the commas. Checked
 * before the list is split, so the work of refusing it stays small.
 */
export const MAX_INDUSTRY_LENGTH = 500;
/** Offending items a refusal names. */
const NAMED = 3;

/** "item 2", "items 2 and 5", "items 2, 5, 9 and 37 more": a few positions, and a count of the rest. */
function items(positions: number[]): string {
  const shown = positions.slice(0, NAMED);
  const more = positions.length - shown.length;
  const head = shown.join(", ");
  if (more > 0) return `items ${head} and ${more} more`;
  if (shown.length === 1) return `item ${head}`;
  return `items ${head.replace(/, (\d+)$/, " and $1")}`;
}

/**
 * Reads a comma list of industries. Empty, unknown and repeated items are
 * one message for the whole parameter, naming a few of them by position
 * (never echoing what was sent), however many there are.
 */
function industryList(raw: string, ctx: z.core.$RefinementCtx<string>): Industry[] {
  const found = new Set<Industry>();
  const empty: number[] = [];
  const unknown: number[] = [];
  const repeated = new Set<Industry>();
  for (const [i, item] of raw.split(",").entries()) {
    const label = item.trim();
    const industry = canonicalIndustry(label);
    if (label === "") empty.push(i + 1);
    else if (!industry) unknown.push(i + 1);
    else if (found.has(industry)) repeated.add(industry);
    else found.add(industry);
  }
  const problems = [
    empty.length > 0 ? `empty: ${items(empty)}` : "",
    unknown.length > 0 ? `not an industry: ${items(unknown)}` : "",
    repeated.size > 0
      ? `repeated: ${[...repeated].slice(0, NAMED).join(", ")}${repeated.size > NAMED ? " and more" : ""}`
      : "",
  ].filter((p) => p !== "");
  if (problems.length > 0) {
    ctx.addIssue({
      code: "custom",
      message: `must list distinct industries separated by commas (${problems.join("; ")}); allowed: ${INDUSTRIES.join(", ")}`,
    });
  }
  return [...found];
}

export const industry = optional(
  text("a comma-separated list of industries")
    .max(MAX_INDUSTRY_LENGTH, {
      error: `must be at most ${MAX_INDUSTRY_LENGTH} characters: each of the ${MAX_INDUSTRY_ITEMS} industries at most once, separated by commas`,
      abort: true,
    })
    .transform(industryList)
    .openapi({
      // A comma-separated list is an array in form style, not exploded (`industry=A,B`).
      type: "array",
      items: { type: "string", enum: [...INDUSTRIES] },
      maxItems: MAX_INDUSTRY_ITEMS,
      uniqueItems: true,
      param: { style: "form", explode: false },
      description: `Comma-separated debtor industries, case-insensitive, each at most once (at most ${MAX_INDUSTRY_ITEMS} items and ${MAX_INDUSTRY_LENGTH} characters); a filing matches if any debtor has one of them.`,
    }),
);

const name = text("a name")
  .trim()
  .min(1, { error: "is required", abort: true })
  // Abort: a refused name is not also run through the match-key checks below.
  .max(MAX_NAME_LENGTH, { error: `must be at most ${MAX_NAME_LENGTH} characters`, abort: true });

/** An exact debtor name; it must leave a match key once noise is removed. */
const debtorName = name
  .refine((n) => debtorNameKey(n) !== "", { error: "must contain a letter or digit" })
  .openapi({
    description:
      "Exact debtor name under UCC standard search logic: case, accents, punctuation, spaces, a leading 'The' and endings such as Inc or LLC are ignored; individuals match by last, first and middle name ('John Smith' or 'Smith, John').",
  });

const postalCode = text("a ZIP code")
  .trim()
  .regex(US_ZIP, { error: "must be five digits or ZIP+4 (12345-6789)" })
  .openapi({ description: "Debtor ZIP code; ZIP+4 matches on its first five digits." });

/**
 * One of `values`, in any case, read as written in `values`. The refusal
 * names them in their order. The caller documents the parameter (the
 * schema's input is any string) with `enum: [...values]`.
 */
function caseInsensitiveEnum<const T extends string>(values: readonly T[]) {
  const listed = `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
  const byLowerCase = new Map(values.map((v) => [v.toLowerCase(), v]));
  return text(listed)
    .trim()
    .toLowerCase()
    .pipe(z.enum([...byLowerCase.keys()], { error: `must be ${listed}` }))
    .transform((v) => byLowerCase.get(v) as T);
}

/** The party types in the order the interface lists them (PARTY_TYPES keeps stored-code order). */
const BORROWER_TYPES = PARTY_TYPES.toReversed();

const borrowerType = optional(
  caseInsensitiveEnum(BORROWER_TYPES).openapi({
    type: "string",
    enum: [...BORROWER_TYPES],
    description: "Only filings with a debtor of this type (case-insensitive).",
  }),
);

const ENVELOPES = ["a", "b"] as const;

function envelope(fallback: (typeof ENVELOPES)[number]) {
  return optional(caseInsensitiveEnum(ENVELOPES))
    .transform((e) => e ?? fallback)
    .openapi({
      type: "string",
      enum: [...ENVELOPES],
      default: fallback,
      description: `Response shape (case-insensitive): \`a\` for envelope A (pages of 5, counted), \`b\` for envelope B (pages of 10, with \`next_page\`).`,
    });
}

export const recentByStateQuery = paged({ state, industry });
export const recentByPostalCodeQuery = paged({
  postal_code: postalCode,
  industry,
  envelope: envelope("a"),
});
export const recentBySecuredPartyQuery = paged({
  name: name
    .refine((n) => securedNameWords(n) !== "", { error: "must contain a letter or digit" })
    .openapi({ description: "Secured party name: case-insensitive, matching whole leading words." }),
  state,
  borrower_type: borrowerType,
  envelope: envelope("b"),
});
export const recentlyTerminatedQuery = paged({ state });
export const debtorSearchQuery = paged({ name: debtorName, state });
export const debtorAddressesQuery = paged({ name: debtorName });
export const debtorAssociatedQuery = paged({ name: debtorName, state });

export const similarQuery = paged({
  name: debtorName.openapi({
    description: "A debtor name as you have it: misspellings, word order, punctuation and legal endings are tolerated.",
  }),
  state: optional(state).openapi({ description: "Only debtors filed in this state. Default: every state." }),
});

const filingNumber = text("a filing number")
  .trim()
  .regex(FILING_NUMBER, {
    error: `must be a filing number: 1 to ${MAX_FILING_NUMBER_LENGTH} characters, none of them control characters`,
  })
  .openapi({
    // FILING_NUMBER spelled without the `u` flag (\P{Cc}), which JSON Schema tools may not apply.
    pattern: `^[^\\u0000-\\u001f\\u007f-\\u009f]{1,${MAX_FILING_NUMBER_LENGTH}}$`,
    description: "The initial financing statement's number, as the state issued it.",
  });

export const filingLookupQuery = paged({
  initial_financing_number: filingNumber,
  state: optional(state).openapi({ description: "The filing's state, when the number alone is ambiguous." }),
});
