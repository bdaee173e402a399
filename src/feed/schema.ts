/**
 * The filing feed's line: one filing in the envelope B lien shape the API
 * returns (endpoint 9's `ucc_liens` element), validated and normalized with
 * zod into the FilingRecord the loader takes.
 *
 * Accepted but recomputed on load: `estimated_lien_lapse_date`,
 * `estimated_lien_status`, `search_url`, `maps_url`. Two optional fields
 * beyond the API's shape carry what it does not show: `filing_kind` on the
 * filing and `street2` on an address. Other unknown fields are ignored.
 */
import { z } from "zod";
import type { AddressRecord, AmendmentRecord, FilingRecord, PartyRecord } from "../db/records.ts";
import { FILING_KINDS } from "../db/schema.ts";
import type { FilingKind } from "../domain/lifecycle.ts";
import { FILING_NUMBER, MAX_FILING_NUMBER_LENGTH, MAX_NAME_LENGTH, US_ZIP } from "../domain/limits.ts";
import { isStateCode } from "../domain/states.ts";
import {
  amendmentKind,
  canonicalIndustry,
  filingKindKey,
  inferFilingKind,
  normalizeName,
  normalizeText,
  normalizeTimestamp,
} from "./normalize.ts";

/** Filings may be dated at most this far ahead of the load (clock and time-zone slack). */
const FUTURE_SLACK_MS = 86_400_000;

const str = () =>
  z.string({ error: (issue) => (issue.input == null ? "is required" : `must be a string, not ${typeof issue.input}`) });

const quoted = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);

/** A value checked (and possibly converted) by `convert`, which returns null for a bad one. */
function converted<T>(convert: (value: string) => T | null, problem: (value: string) => string) {
  return str().transform((value, ctx): T => {
    const out = convert(value);
    if (out === null) {
      ctx.addIssue({ code: "custom", message: problem(value) });
      return z.NEVER;
    }
    return out;
  });
}

const text = (max: number) =>
  str()
    .transform(normalizeText)
    .pipe(z.string().min(1, "must not be empty").max(max, `must be at most ${max} characters`));

const optionalText = (max: number) =>
  z
    .string({ error: "must be a string or null" })
    .nullish()
    .transform((v) => (v == null ? null : normalizeText(v) || null))
    .pipe(z.string().max(max, `must be at most ${max} characters`).nullable());

const partyName = str()
  .transform(normalizeName)
  .pipe(
    z
      .string()
      .min(1, "must not be empty")
      .max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`)
      .regex(/[\p{L}\p{N}]/u, "must contain a letter or digit"),
  );

/** A filing or amendment number: opaque, trimmed, without control characters. */
const filingNumber = str()
  .transform((v) => v.trim())
  .pipe(
    z
      .string()
      .min(1, "must not be empty")
      .max(MAX_FILING_NUMBER_LENGTH, `must be at most ${MAX_FILING_NUMBER_LENGTH} characters`)
      .regex(FILING_NUMBER, "must not contain control characters"),
  );

export const timestamp = converted(
  normalizeTimestamp,
  (v) => `${quoted(v)} is not a timestamp: use YYYY-MM-DDThh:mm:ssZ, YYYY-MM-DDThh:mm:ss or YYYY-MM-DD hh:mm:ss (UTC)`,
);

export const stateCode = converted(
  (v) => {
    const code = normalizeText(v).toUpperCase();
    return isStateCode(code) ? code : null;
  },
  (v) => `${quoted(v)} is not a US state or territory code`,
);

const zipCode = converted(
  (v) => (US_ZIP.test(v.trim()) ? v.trim() : null),
  (v) => `${quoted(v)} is not a ZIP code: five digits, or ZIP+4 as 12345-6789`,
);

export const filingKind = converted(
  (v) => {
    const key = filingKindKey(v);
    return (FILING_KINDS as readonly string[]).includes(key) ? (key as FilingKind) : null;
  },
  (v) => `${quoted(v)} is not a filing kind: use one of ${FILING_KINDS.join(", ")}`,
);

export const debtorType = converted(
  (v): PartyRecord["type"] | null => {
    const t = normalizeText(v).toLowerCase();
    return t === "individual" ? "Individual" : t === "organization" || t === "organisation" ? "Organization" : null;
  },
  (v) => `${quoted(v)} is not a debtor type: use Individual or Organization`,
);

const securedType = converted(
  (v): PartyRecord["type"] | null => {
    const t = normalizeText(v).toLowerCase();
    return t === "individual"
      ? "Individual"
      : ["secured party", "organization", "organisation"].includes(t)
        ? "Organization"
        : null;
  },
  (v) => `${quoted(v)} is not a secured party type: use Secured Party, Organization or Individual`,
);

export const amendmentDescription = text(200).transform((description, ctx) => {
  const kind = amendmentKind(description);
  if (kind === null) {
    ctx.addIssue({
      code: "custom",
      message: `${quoted(description)} names no amendment type: expected a continuation, termination, assignment, or a collateral or party amendment`,
    });
    return z.NEVER;
  }
  return { description, kind };
});

const lapseDateField = z
  .string({ error: "must be a date (YYYY-MM-DD) or null" })
  .nullable()
  .optional()
  .refine((v) => v == null || (/^\d{4}-\d{2}-\d{2}$/.test(v) && normalizeTimestamp(v) !== null), {
    error: (issue) => `${quoted(String(issue.input))} is not a date (YYYY-MM-DD)`,
  });

export const address = z
  .object(
    {
      street1: text(200),
      street2: optionalText(200),
      city: text(100),
      state: stateCode,
      zip_code: zipCode,
      country: optionalText(60),
    },
    { error: "must be an address object" },
  )
  .transform(
    (a): AddressRecord => ({
      street1: a.street1,
      street2: a.street2,
      city: a.city,
      state: a.state,
      zipCode: a.zip_code,
      country: a.country,
    }),
  );

export const debtorParty = z
  .object(
    { name: partyName, type: debtorType, category: optionalText(100), address },
    { error: "must be a party object" },
  )
  .transform(
    (p): PartyRecord => ({
      name: p.name,
      type: p.type,
      // The API shows a debtor without an industry with its type as category.
      label:
        p.category === null || p.category.toLowerCase() === p.type.toLowerCase() ? null : canonicalIndustry(p.category),
      address: p.address,
    }),
  );

export const securedParty = z
  .object(
    { name: partyName, type: securedType.optional(), category: optionalText(100), address },
    { error: "must be a party object" },
  )
  .transform(
    (p): PartyRecord => ({
      name: p.name,
      type: p.type ?? "Organization",
      // The API shows a lender without a category as "Secured Party".
      label: p.category === null || p.category.toLowerCase() === "secured party" ? null : p.category,
      address: p.address,
    }),
  );

export const amendment = z
  .object(
    {
      amendment_financing_number: filingNumber,
      amendment_financing_date: timestamp,
      amendment_financing_type_description: amendmentDescription,
    },
    { error: "must be an amendment object" },
  )
  .transform(
    (a): AmendmentRecord => ({
      number: a.amendment_financing_number,
      filedAt: a.amendment_financing_date,
      kind: a.amendment_financing_type_description.kind,
      description: a.amendment_financing_type_description.description,
    }),
  );

const parties = <T extends z.ZodType>(party: T, what: string) =>
  z
    .array(party, { error: `must be an array of ${what}` })
    .min(1, `must name at least one ${what.replace(/ies$/, "y")}`)
    .max(200, `must name at most 200 ${what}`);

/** The schema of one feed filing, checking dates against `now`. */
export function lienSchema(now: Date = new Date()) {
  const latest = now.getTime() + FUTURE_SLACK_MS;
  return z
    .object(
      {
        initial_financing_number: filingNumber,
        initial_financing_date: timestamp,
        jurisdiction_state: stateCode,
        filing_kind: filingKind.optional(),
        estimated_lien_lapse_date: lapseDateField,
        involved_parties: z.object(
          {
            debtor_parties: parties(debtorParty, "debtor parties"),
            secured_parties: parties(securedParty, "secured parties"),
          },
          { error: "must be an object with debtor_parties and secured_parties" },
        ),
        amendments: z
          .array(amendment, { error: "must be an array of amendments" })
          .max(500, "must list at most 500 amendments")
          .nullish()
          .transform((a) => a ?? []),
      },
      { error: "must be a JSON object (one filing)" },
    )
    .superRefine((lien, ctx) => {
      if (Date.parse(lien.initial_financing_date) > latest) {
        ctx.addIssue({ code: "custom", path: ["initial_financing_date"], message: "is in the future" });
      }
      const seen = new Set<string>();
      lien.amendments.forEach((a, i) => {
        if (a.filedAt < lien.initial_financing_date) {
          ctx.addIssue({
            code: "custom",
            path: ["amendments", i, "amendment_financing_date"],
            message: `is before the initial financing date ${lien.initial_financing_date}`,
          });
        }
        if (Date.parse(a.filedAt) > latest) {
          ctx.addIssue({
            code: "custom",
            path: ["amendments", i, "amendment_financing_date"],
            message: "is in the future",
          });
        }
        if (seen.has(a.number)) {
          ctx.addIssue({
            code: "custom",
            path: ["amendments", i, "amendment_financing_number"],
            message: `${quoted(a.number)} appears twice on this filing`,
          });
        }
        seen.add(a.number);
      });
    })
    .transform((lien): FilingRecord => {
      const debtors = lien.involved_parties.debtor_parties;
      return {
        state: lien.jurisdiction_state,
        number: lien.initial_financing_number,
        filedAt: lien.initial_financing_date,
        kind:
          lien.filing_kind ??
          inferFilingKind(lien.estimated_lien_lapse_date, {
            filedAt: lien.initial_financing_date,
            debtors,
            amendments: lien.amendments,
          }),
        debtors,
        securedParties: lien.involved_parties.secured_parties,
        amendments: lien.amendments,
      };
    });
}

export type LienSchema = ReturnType<typeof lienSchema>;

/** `["involved_parties", "debtor_parties", 0, "name"]` as `involved_parties.debtor_parties[0].name`. */
export function pathLabel(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) out += typeof key === "number" ? `[${key}]` : `${out ? "." : ""}${String(key)}`;
  return out || "filing";
}

/** A zod error as one readable line: each problem as `field: what is wrong`. */
export function describeIssues(
  error: z.ZodError,
  label: (path: readonly PropertyKey[]) => string = pathLabel,
  max = 5,
): string {
  const parts = error.issues.slice(0, max).map((i) => `${label(i.path)}: ${i.message}`);
  if (error.issues.length > max) parts.push(`and ${error.issues.length - max} more`);
  return parts.join("; ");
}
