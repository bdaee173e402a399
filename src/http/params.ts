/**
 * Query parameters of every endpoint: one zod schema each, which validates
 * and normalizes the request, types the handler's input and documents the
 * parameter in the OpenAPI description.
 */
import { z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { flat } from "../domain/flat.ts";
import { canonicalIndustry, INDUSTRIES, type Industry } from "../domain/industries.ts";
import { CHANGE_TYPES, PARTY_TYPES } from "../domain/kinds.ts";
import { LAPSING_DAYS } from "../domain/lifecycle.ts";
import {
  FILING_NUMBER,
  MAX_CHANGES_LIMIT,
  MAX_FILING_NUMBER_LENGTH,
  MAX_NAME_LENGTH,
  US_ZIP,
} from "../domain/limits.ts";
import { debtorNameKey, securedNameWords } from "../domain/names.ts";
import { isStateCode, STATE_CODES } from "../domain/states.ts";
import { isCalendarDay, isoSeconds } from "../domain/time.ts";
import type { AppEnv } from "./context.ts";
import { cursorParam } from "./cursor.ts";
import { ApiError, badParameters } from "./errors.ts";

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

/** `text` as a query string part decodes it (`+` is a space), or null when its percent-encoding is not UTF-8. */
function decodedPart(text: string): string | null {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return null;
  }
}

/**
 * Refuses a query whose percent-encoding is not UTF-8 (`%E9` for é, as
 * Latin-1 clients write it) with a 400 naming each such parameter. Hono
 * keeps an undecodable value as its raw text, so `name=Ren%E9e` would be
 * searched as "Ren%E9e" and answer a confident "no filings" for a
 * borrower who has some.
 */
export const utf8Query = createMiddleware<AppEnv>(async (c, next) => {
  const url = c.req.url;
  const at = url.indexOf("?");
  // The whole query at once first: `&` and `=` are never inside a character's bytes, so it decodes when every part does.
  if (at >= 0 && url.includes("%", at) && decodedPart(url.slice(at + 1)) === null) {
    const bad = new Set<string>();
    for (const pair of url.slice(at + 1).split("&")) {
      const [key = "", ...rest] = pair.split("=");
      const name = decodedPart(key);
      if (name === null || decodedPart(rest.join("=")) === null) bad.add(name ?? key);
    }
    if (bad.size > 0) {
      const message = "is not valid percent-encoded UTF-8: encode the text as UTF-8 bytes (é is %C3%A9, not %E9)";
      throw badParameters([...bad].map((parameter) => ({ parameter, message })));
    }
  }
  await next();
});

/**
 * The JSON Schema pattern of a case-insensitive choice: one of `values` in
 * any case, with any whitespace around it (the server trims it), so the
 * document admits exactly the spellings the server accepts. JSON Schema
 * patterns take no flags, so each letter is a class of its two cases.
 */
function anyCasePattern(values: readonly string[]): string {
  const spell = (value: string) =>
    [...value]
      .map((ch) => {
        const [upper, lower] = [ch.toUpperCase(), ch.toLowerCase()];
        return upper === lower ? ch.replace(/[\^$\\.*+?()[\]{}|/]/g, "\\$&") : `[${upper}${lower}]`;
      })
      .join("");
  return `^\\s*(?:${values.map(spell).join("|")})\\s*$`;
}

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
    // Any case is accepted, so the document gives a pattern of the codes in any case.
    type: "string",
    pattern: anyCasePattern(STATE_CODES),
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
 * Refuses parameters `a` and `b` given together: one issue on each, so the
 * 400 names both, with `message(other)` (`other`: the parameter it was given with).
 */
function exclusive<K extends string>(a: K, b: K, message: (other: K) => string) {
  return (q: Partial<Record<K, unknown>>, ctx: z.RefinementCtx) => {
    if (q[a] === undefined || q[b] === undefined) return;
    for (const [parameter, other] of [
      [a, b],
      [b, a],
    ] as const) {
      ctx.addIssue({ code: "custom", path: [parameter], message: message(other) });
    }
  };
}

/**
 * A paged list's parameters: `shape`, then where the page starts, `page` or
 * `cursor` (the `next_cursor` of the page before), never both.
 */
function paged<S extends z.ZodRawShape>(shape: S) {
  return z
    .object({ ...shape, page, cursor: optional(cursorParam) })
    .superRefine(
      exclusive(
        "page",
        "cursor",
        (other) =>
          `cannot be given with \`${other}\`: a cursor names its own page; send \`page\` or \`cursor\`, not both`,
      ),
    );
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
      items: { type: "string", pattern: anyCasePattern(INDUSTRIES) },
      maxItems: MAX_INDUSTRY_ITEMS,
      uniqueItems: true,
      param: { style: "form", explode: false },
      description: `Comma-separated debtor industries, in any case, each at most once (at most ${MAX_INDUSTRY_ITEMS} items and ${MAX_INDUSTRY_LENGTH} characters); a filing matches if any debtor has one of them. The industries: ${INDUSTRIES.join("; ")}.`,
    }),
);

const name = text("a name")
  .trim()
  .min(1, { error: "is required", abort: true })
  // Abort: a refused name is not also run through the match-key checks below.
  .max(MAX_NAME_LENGTH, { error: `must be at most ${MAX_NAME_LENGTH} characters`, abort: true })
  // A query value is cut out of the URL (a sliced string) and bodies echo it: written whole (src/domain/flat.ts).
  .overwrite(flat);

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
 * schema's input is any string) with `pattern: anyCasePattern(values)`.
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
    pattern: anyCasePattern(BORROWER_TYPES),
    description: `Only filings with a debtor of this type: ${BORROWER_TYPES.join(" or ")}, in any case.`,
  }),
);

const ENVELOPES = ["a", "b"] as const;

function envelope(fallback: (typeof ENVELOPES)[number]) {
  return optional(caseInsensitiveEnum(ENVELOPES))
    .transform((e) => e ?? fallback)
    .openapi({
      type: "string",
      pattern: anyCasePattern(ENVELOPES),
      default: fallback,
      description: `Response shape, in any case: \`a\` for envelope A (pages of 5, counted), \`b\` for envelope B (pages of 10, with \`next_page\`).`,
    });
}

export const recentByStateQuery = paged({ state, industry });
export const recentByPostalCodeQuery = paged({
  postal_code: postalCode,
  industry,
  envelope: envelope("a"),
});
/** A secured party name: whole leading words, case-insensitive. */
const securedName = name.refine((n) => securedNameWords(n) !== "", { error: "must contain a letter or digit" });

export const recentBySecuredPartyQuery = paged({
  name: securedName.openapi({ description: "Secured party name: case-insensitive, matching whole leading words." }),
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

const date = text("a date, YYYY-MM-DD").refine(isCalendarDay, { error: "must be a date written YYYY-MM-DD" });

export const lapsingQuery = paged({
  state,
  from: optional(date).openapi({
    type: "string",
    format: "date",
    description: "First lapse date of the window (inclusive), YYYY-MM-DD. Default: today (UTC).",
  }),
  to: optional(date).openapi({
    type: "string",
    format: "date",
    description: `Last lapse date of the window (inclusive), YYYY-MM-DD. Default: ${LAPSING_DAYS} days after \`from\` or today.`,
  }),
  secured_party: optional(securedName).openapi({
    description: "Only filings with a secured party of this name: case-insensitive, matching whole leading words.",
  }),
  industry,
  envelope: envelope("b"),
}).superRefine((q, ctx) => {
  // Compared only when both are days: a malformed one is refused on its own, and never echoed.
  if (q.from !== undefined && q.to !== undefined && isCalendarDay(q.from) && isCalendarDay(q.to) && q.from > q.to) {
    ctx.addIssue({ code: "custom", path: ["to"], message: `must not be before from (${q.from})` });
  }
});

/** A comma list of change types, each once, exactly as named. */
const changeTypes = optional(
  text("a comma-separated list of change types")
    .max(300, { error: "must be at most 300 characters: each change type at most once", abort: true })
    .transform((raw, ctx) => {
      const found: (typeof CHANGE_TYPES)[number][] = [];
      const unknown: number[] = [];
      for (const [i, item] of raw.split(",").entries()) {
        const type = CHANGE_TYPES.find((t) => t === item.trim());
        if (!type) unknown.push(i + 1);
        else if (!found.includes(type)) found.push(type);
      }
      if (unknown.length > 0) {
        ctx.addIssue({
          code: "custom",
          message: `must list change types separated by commas (not a change type: ${items(unknown)}); allowed: ${CHANGE_TYPES.join(", ")}`,
        });
      }
      return found;
    })
    .openapi({
      type: "array",
      items: { type: "string", enum: [...CHANGE_TYPES] },
      maxItems: CHANGE_TYPES.length,
      uniqueItems: true,
      param: { style: "form", explode: false },
      description: `Only changes of these types (comma-separated, as named): ${CHANGE_TYPES.join(", ")}.`,
    }),
);

/** An instant, ISO 8601 with a Z or an offset (`2026-11-01T00:00:00Z`). */
const since = text("an ISO 8601 timestamp")
  .max(40, { error: "must be an ISO 8601 timestamp such as 2026-11-01T00:00:00Z", abort: true })
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/, {
    error: "must be an ISO 8601 timestamp with a time zone, such as 2026-11-01T00:00:00Z",
    abort: true,
  })
  // Date.parse rolls an impossible day forward (February 31 is March 3): the day is checked as written.
  .refine((t) => isCalendarDay(t.slice(0, 10)) && !Number.isNaN(Date.parse(t)), {
    error: "must be a real time, such as 2026-11-01T00:00:00Z",
  })
  // Changes are recorded to the second: "at or after" a fraction of a second is from the next whole second.
  .transform((t) => isoSeconds(Math.ceil(Date.parse(t) / 1000) * 1000));

export const changesQuery = z
  .object({
    state: optional(state).openapi({ description: "Only changes of filings in this state. Default: every state." }),
    cursor: optional(cursorParam),
    since: optional(since).openapi({
      type: "string",
      format: "date-time",
      description: "Start with the changes recorded at or after this time (not with `cursor`).",
    }),
    types: changeTypes,
    debtor_name: optional(debtorName).openapi({
      description:
        "Only changes of filings naming this debtor, matched as `/debtors/search` matches names (UCC standard search logic).",
    }),
    secured_party: optional(securedName).openapi({
      description: "Only changes of filings naming this secured party: case-insensitive, matching whole leading words.",
    }),
    limit: optional(integer(1, MAX_CHANGES_LIMIT))
      .transform((l) => l ?? MAX_CHANGES_LIMIT)
      .openapi({
        type: "integer",
        minimum: 1,
        maximum: MAX_CHANGES_LIMIT,
        default: MAX_CHANGES_LIMIT,
        description: "Most changes in the page.",
      }),
  })
  .superRefine(
    exclusive(
      "cursor",
      "since",
      () => "cursor and since cannot be given together: resume with cursor, or start again with since",
    ),
  );

export const statesQuery = z.object({});

/** Most states a lien report names: each code once. */
const MAX_REPORT_STATES = STATE_CODES.length;
/** Longest `state` list of a report: every code with a comma and a space around each. */
const MAX_STATE_LIST_LENGTH = MAX_REPORT_STATES * 6;

/**
 * Reads a comma list of state codes, as industryList reads industries: one
 * message for every empty, unknown or repeated item, by position.
 */
function stateList(raw: string, ctx: z.core.$RefinementCtx<string>): string[] {
  const found = new Set<string>();
  const empty: number[] = [];
  const unknown: number[] = [];
  const repeated = new Set<string>();
  for (const [i, item] of raw.split(",").entries()) {
    const code = item.trim().toUpperCase();
    if (code === "") empty.push(i + 1);
    else if (!isStateCode(code)) unknown.push(i + 1);
    else if (found.has(code)) repeated.add(code);
    else found.add(code);
  }
  const problems = [
    empty.length > 0 ? `empty: ${items(empty)}` : "",
    unknown.length > 0 ? `not a state code: ${items(unknown)}` : "",
    repeated.size > 0
      ? `repeated: ${[...repeated].slice(0, NAMED).join(", ")}${repeated.size > NAMED ? " and more" : ""}`
      : "",
  ].filter((p) => p !== "");
  if (problems.length > 0) {
    ctx.addIssue({
      code: "custom",
      message: `must list distinct two-letter state or territory codes separated by commas (${problems.join("; ")})`,
    });
  }
  return [...found].sort();
}

const REPORT_FORMATS = ["json", "csv"] as const;

export const reportQuery = z.object({
  name: debtorName,
  state: optional(
    text("a comma-separated list of state codes")
      .max(MAX_STATE_LIST_LENGTH, {
        error: `must be at most ${MAX_STATE_LIST_LENGTH} characters: each of the ${MAX_REPORT_STATES} state codes at most once, separated by commas`,
        abort: true,
      })
      .transform(stateList)
      .openapi({
        type: "array",
        items: { type: "string", pattern: anyCasePattern(STATE_CODES) },
        maxItems: MAX_REPORT_STATES,
        uniqueItems: true,
        param: { style: "form", explode: false },
        description: `Comma-separated state or territory codes to search, in any case, each at most once. Default: every state the service holds.`,
      }),
  ),
  cursor: optional(cursorParam),
  format: optional(
    caseInsensitiveEnum(REPORT_FORMATS).openapi({
      type: "string",
      pattern: anyCasePattern(REPORT_FORMATS),
      description:
        "`csv` for the page of filings as CSV (as `Accept: text/csv` asks); default JSON. The report's id and time come in headers then.",
    }),
  ),
});
