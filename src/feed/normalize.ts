/**
 * Normalization of feed values, applied to every filing before it is
 * loaded, whatever the feed's format. Each function is idempotent, so data
 * exported by this service and imported again comes back unchanged.
 */
import { INDUSTRIES } from "../domain/industries.ts";
import { type AmendmentKind, type FilingKind, lapseDate } from "../domain/lifecycle.ts";
import { isoSeconds } from "../domain/time.ts";

const CONTROL = /\p{Cc}/gu;

/** Trimmed, with control characters and runs of whitespace turned into single spaces. */
export function normalizeText(value: string): string {
  return value.normalize("NFC").replace(CONTROL, " ").replace(/\s+/g, " ").trim();
}

/**
 * A party name as filed, tidied: whitespace collapsed, no space before
 * closing punctuation (`Acme , Inc .` is `Acme, Inc.`) or after an opening
 * bracket, and one space after a comma that runs into a letter
 * (`Acme,Inc` is `Acme, Inc`). Case and words are kept.
 */
export function normalizeName(value: string): string {
  return normalizeText(value)
    .replace(/ +([,.;:!?)\]])/g, "$1")
    .replace(/([([]) +/g, "$1")
    .replace(/,(?=\p{L})/gu, ", ");
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A timestamp in one of the forms filing feeds use, as ISO 8601 UTC with Z
 * to the second; null if it is not one of them or not a real instant.
 * - `2025-09-08T14:03:11Z` (ISO with Z; an offset such as `+02:00` is applied);
 * - `2025-09-08T14:03:11` (ISO without zone: UTC);
 * - `2025-09-08 14:03:11` (UTC);
 * - `2025-09-08` (midnight UTC).
 * Fractions of a second are dropped; seconds may be left out.
 */
export function normalizeTimestamp(value: string): string | null {
  const m = TIMESTAMP.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", zone] = m;
  const parts = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = parts;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 2025-02-30 over into March: such a day does not exist.
  if (new Date(utc).getUTCDate() !== day) return null;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== "Z") {
    const digits = zone.replace(":", "");
    const hours = Number(digits.slice(1, 3));
    const minutes = Number(digits.slice(3, 5));
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (zone.startsWith("-") ? -1 : 1) * (hours * 60 + minutes);
  }
  return isoSeconds(utc - offsetMinutes * 60_000);
}

/** A debtor industry in its canonical spelling when it is one of the 15 industries (any case), else as given. */
export function canonicalIndustry(label: string): string {
  const lower = label.toLowerCase();
  return INDUSTRIES.find((i) => i.toLowerCase() === lower) ?? label;
}

/**
 * The kind of an amendment, from the filing office's description of it:
 * - a termination (`Termination`, `Terminated`, `Partial Termination`);
 * - a continuation (`Continuation`, `Continued`);
 * - an assignment (`Assignment`, `Partial Assignment`);
 * - a change of collateral (`Amendment - Collateral`, `Collateral Restated`);
 * - a change of party information: any other amendment (`Amendment`,
 *   `Amendment - Party Information`, `Debtor Name Change`, `Restatement`).
 * Null when the description names none of these.
 */
export function amendmentKind(description: string): AmendmentKind | null {
  const d = description.toLowerCase();
  if (/\bterminat/.test(d)) return "termination";
  if (/\bcontinu/.test(d)) return "continuation";
  if (/\bassign/.test(d)) return "assignment";
  if (/\bcollateral/.test(d)) return "collateral_change";
  if (/\b(amend|part(y|ies)|debtor|secured|name|address|change|restat)/.test(d)) return "party_change";
  return null;
}

/** `manufactured_home`, `Manufactured Home`, `manufactured-home`: one kind. */
export function filingKindKey(value: string): string {
  return normalizeText(value)
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

/**
 * The kind of a filing that carries no explicit kind, from the lapse date
 * the feed gives for it:
 * - no lapse date field at all: a standard filing;
 * - a null lapse date: a transmitting utility (the only kind that never lapses);
 * - otherwise the kind whose lapse date (computed with the filing's
 *   continuations) is nearest the given one: standard (five years) or a
 *   thirty-year filing, which is a manufactured home when every debtor is an
 *   individual and a public-finance transaction otherwise.
 */
export function inferFilingKind(
  givenLapse: string | null | undefined,
  filing: {
    filedAt: string;
    debtors: readonly { type: string }[];
    amendments: readonly { kind: AmendmentKind; filedAt: string }[];
  },
): FilingKind {
  if (givenLapse === undefined) return "standard";
  if (givenLapse === null) return "transmitting_utility";
  const thirtyYear: FilingKind = filing.debtors.every((d) => d.type === "Individual")
    ? "manufactured_home"
    : "public_finance";
  const distance = (kind: FilingKind) =>
    Math.abs(Date.parse(lapseDate(kind, filing.filedAt, filing.amendments)!) - Date.parse(givenLapse));
  return distance(thirtyYear) < distance("standard") ? thirtyYear : "standard";
}
