/**
 * Normalization of feed values, applied to every filing before it is
 * loaded, whatever the feed's format. Each function is idempotent, so data
 * exported by this service and imported again comes back unchanged.
 */
import { canonicalIndustry as industryOf } from "../domain/industries.ts";
import { type AmendmentKind, FILING_KINDS, type FilingKind } from "../domain/kinds.ts";
import { lapseDate } from "../domain/lifecycle.ts";
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

/**
 * A collateral description as filed: line breaks kept (schedules are laid
 * out in lines), each line tidied as text, blank lines at the ends dropped
 * and runs of blank lines made one.
 */
export function normalizeCollateral(value: string): string {
  return value
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map(normalizeText)
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
/** `20130522`, `20130522 1700`, `20130522 170312`: the compact form of bulk files. */
const COMPACT = /^(\d{4})(\d{2})(\d{2})(?:[T ]?(\d{2}):?(\d{2})(?::?(\d{2}))?)?$/;

/**
 * A timestamp in one of the forms filing feeds use, as ISO 8601 UTC with Z
 * to the second; null if it is not one of them or not a real instant.
 * - `2025-09-08T14:03:11Z` (ISO with Z; an offset such as `+02:00` is applied);
 * - `2025-09-08T14:03:11` (ISO without zone: UTC);
 * - `2025-09-08 14:03:11` (UTC);
 * - `2025-09-08` (midnight UTC);
 * - `20250908 1403` or `20250908` (bulk files' compact form, UTC).
 * A time without zone is read as UTC, so the date stays the office's.
 * Fractions of a second are dropped; seconds may be left out.
 */
export function normalizeTimestamp(value: string): string | null {
  const text = value.trim();
  const m = TIMESTAMP.exec(text) ?? COMPACT.exec(text);
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

/** A date (`2025-09-08` or `20250908`) as YYYY-MM-DD; null if it is neither or no real day. */
export function normalizeDate(value: string): string | null {
  const text = value.trim();
  if (!/^\d{4}-?\d{2}-?\d{2}$/.test(text)) return null;
  return normalizeTimestamp(text)?.slice(0, 10) ?? null;
}

/** A debtor industry in its canonical spelling when it is one of the 15 industries (any case), else as given. */
export function canonicalIndustry(label: string): string {
  return industryOf(label) ?? label;
}

/** Office codes run words together (IACA's `TerminationSecuredParty`): their words, lower-cased. */
function words(value: string): string {
  return normalizeText(value)
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();
}

/**
 * The kind of an amendment, from the filing office's description of it
 * (IACA codes such as `AmendmentParties - DebtorAdd` read as their words),
 * first match wins:
 * - a reinstatement: a termination revoked or filed in error
 *   (`Termination Revoked`, `Erroneous Termination`, `Reinstatement`): it
 *   cancels the terminations filed before it and terminates nothing;
 * - `other` for a partial termination or release, which ends nothing whole;
 * - a termination (`Termination`, `TerminationSecuredParty`, a lien's
 *   `Release`; a `Release of Collateral` is a collateral change);
 * - a continuation (`Continuation`, `Renewal`, `Refiling`);
 * - an assignment (`Assignment`, `Partial Assignment`);
 * - a change of collateral (`Amendment - Collateral`, `CollateralRestate`);
 * - `other` for corrections and office statements (`Correction`,
 *   `Office Correction`, `OfficerStatement`, `Lapse notice`);
 * - a change of party information: any other amendment (`Amendment`,
 *   `Master Amendment`, `Debtor Name Change`, `Restatement`);
 * - `other` for anything else: kept with its description, never refused.
 */
export function amendmentKind(description: string): AmendmentKind {
  const d = words(description);
  const terminates = /\bterminat/.test(d);
  const revokes = /\b(revok|revoc|rescind)/.test(d);
  // A release revoked (the IRS's revocation of a certificate of release) puts the lien back in force.
  if (
    /\breinstat/.test(d) ||
    (terminates && (revokes || /\b(erroneous|error|void)/.test(d))) ||
    (revokes && /\breleas/.test(d))
  ) {
    return "reinstatement";
  }
  if (/\bpartial\b/.test(d) && (terminates || /\brelease/.test(d))) return "other";
  if (terminates) return "termination";
  if (/\brelease/.test(d)) return /\bcollateral/.test(d) ? "collateral_change" : "termination";
  if (/\b(continu|renew|refil)/.test(d)) return "continuation";
  if (/\bassign/.test(d)) return "assignment";
  if (/\bcollateral/.test(d)) return "collateral_change";
  if (/\b(correct|office|statement|notice|lapse)/.test(d)) return "other";
  if (/\b(amend|part(y|ies)|debtor|secured|name|address|change|restat)/.test(d)) return "party_change";
  return "other";
}

/** Other names of the filing kinds: IACA's AltFilingType values and common office labels. */
const KIND_ALIASES: Record<string, FilingKind> = {
  no_alt_type: "standard",
  noalt_type: "standard",
  none: "standard",
  ucc: "standard",
  ucc1: "standard",
  ucc_1: "standard",
  financing_statement: "standard",
  fixture_filing: "standard",
  food_security_act: "standard",
  ag_lien: "agricultural_lien",
  agricultural: "agricultural_lien",
  non_ucc_filing: "other_lien",
};

/**
 * The filing kind a feed names: one of FILING_KINDS in any case, with
 * spaces or hyphens for underscores, an IACA AltFilingType (`StateLien`,
 * `AgLien`, `TransmittingUtility`, `NOAltType`) or an office label
 * (`Federal Tax Lien`, `Judgment Lien`) or the UCC-1's box 6a
 * (`Manufactured-Home Transaction`); any other lien is `other_lien`.
 * Null when the text names no kind.
 */
export function filingKindOf(value: string): FilingKind | null {
  const key = words(value)
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if ((FILING_KINDS as readonly string[]).includes(key)) return key as FilingKind;
  if (KIND_ALIASES[key]) return KIND_ALIASES[key];
  // The UCC-1's own box 6a labels ("Manufactured-Home Transaction", "A Debtor is a Transmitting Utility").
  if (/manufactured/.test(key)) return "manufactured_home";
  if (/public_finance/.test(key)) return "public_finance";
  if (/transmitting_utility/.test(key)) return "transmitting_utility";
  if (/federal|irs/.test(key)) return "federal_tax_lien";
  if (/^state_(tax_)?lien|tax_lien|tax_warrant/.test(key)) return "state_tax_lien";
  if (/judg/.test(key)) return "judgment_lien";
  if (/lien/.test(key)) return "other_lien";
  return null;
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
  const distance = (kind: FilingKind) => {
    const lapse = lapseDate(kind, filing.filedAt, filing.amendments);
    return lapse === null ? Number.POSITIVE_INFINITY : Math.abs(Date.parse(lapse) - Date.parse(givenLapse));
  };
  return distance(thirtyYear) < distance("standard") ? thirtyYear : "standard";
}
