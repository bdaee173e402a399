/**
 * How a lien report's parts become its answer: the JSON body (schemas.ts)
 * and the CSV of its page of filings.
 */

import { traitCategories } from "../db/records.ts";
import { collateralCategories, collateralTerms, currentCollateral, vinsIn } from "../domain/collateral.ts";
import { flat, joined } from "../domain/flat.ts";
import { lienStatus } from "../domain/lifecycle.ts";
import { debtorQuery, type KeySpan } from "../domain/names.ts";
import { securedPartyKind } from "../domain/securedPartyKinds.ts";
import { lienFull } from "../http/present.ts";
import type { FilingWithParties } from "../queries/filings.ts";
import type { ReportFiling, ReportSummary } from "./schemas.ts";

export const SEARCH_LOGIC =
  "Each state was searched under the UCC standard search logic filing offices publish: case, punctuation, spaces, a leading The and endings such as Inc or LLC are ignored, and the name is also read as an individual's (last name, then first name or its initial, then middle name).";

/** One key span as a reader sees it: an exact key, or a key prefix with `*`. */
function spanText(span: KeySpan): string {
  if ("key" in span) return flat(span.key.trimEnd());
  const head = `${span.from.trimEnd()} *`;
  const rule = span.middle;
  // Flat, as every string of a body (src/domain/flat.ts).
  if (!rule) return flat(head);
  return "initial" in rule
    ? joined(head, " (middle name starting ", rule.initial, ")")
    : joined(head, " (middle name ", rule.names.join(" or "), ")");
}

/** The keys searched for `name`: its organization key, then its readings as an individual. */
export function nameSearched(name: string): string[] {
  const q = debtorQuery(name);
  return [...new Set([q.orgKey, ...q.personSpans.map(spanText)].filter((k) => k !== ""))];
}

/** A matched filing as the report lists it: the public lookup's filing with its categories, VINs and lender kinds. */
export function reportFiling(item: FilingWithParties, today: string): ReportFiling {
  const full = lienFull(item, today);
  const text = currentCollateral(item.filing.collateral, item.amendments);
  // The categories the filing's traits record (the summary counts the same), their terms read from the text.
  const { traits } = item.filing;
  const matches = traits === null ? collateralCategories(text) : collateralTerms(text, traitCategories(traits));
  return {
    ...full,
    involved_parties: {
      debtor_parties: full.involved_parties.debtor_parties,
      secured_parties: full.involved_parties.secured_parties.map((p) => ({ ...p, kind: securedPartyKind(p.name) })),
    },
    collateral_categories: matches.map((m) => m.category),
    // Matches are cut from the text: copied whole, as every string of a body (src/domain/flat.ts).
    collateral_terms: Object.fromEntries(
      matches.filter((m) => m.terms.length > 0).map((m) => [m.category, m.terms.map(flat)]),
    ),
    vins: text === null ? [] : vinsIn(text).map(flat),
  };
}

/** The summary's oldest live filing, from its row with parties. */
export function firstActive(item: FilingWithParties | undefined): ReportSummary["first_active_filing"] {
  if (!item) return null;
  return {
    initial_financing_number: item.filing.number,
    jurisdiction_state: item.filing.state,
    initial_financing_date: item.filing.filedAt,
    secured_parties: item.securedParties.map((p) => ({ name: p.name, kind: securedPartyKind(p.name) })),
  };
}

const CSV_COLUMNS = [
  "initial_financing_number",
  "jurisdiction_state",
  "initial_financing_date",
  "filing_kind",
  "status",
  "lapse_date",
  "debtors",
  "secured_parties",
  "secured_party_kinds",
  "collateral_categories",
  "vins",
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line
 * break. A text field that a spreadsheet would run as a formula (starting
 * with =, +, -, @, a tab or a carriage return) gets a leading apostrophe,
 * which spreadsheets show as text.
 */
function field(value: string, text: boolean): string {
  const safe = text && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The page of filings as CSV: a header row, then one row per filing, CRLF line ends, a UTF-8 byte order mark for spreadsheets. */
export function reportCsv(items: FilingWithParties[], today: string): string {
  const rows = items.map((item) => {
    const shown = reportFiling(item, today);
    const joined = (values: string[]) => values.join("; ");
    return [
      field(item.filing.number, true),
      field(item.filing.state, false),
      field(item.filing.filedAt, false),
      field(item.filing.kind, false),
      field(lienStatus(item.filing, today), false),
      field(item.filing.lapseDate ?? "", false),
      field(joined(item.debtors.map((d) => d.name)), true),
      field(joined(item.securedParties.map((s) => s.name)), true),
      field(joined(shown.involved_parties.secured_parties.map((s) => s.kind)), false),
      field(joined(shown.collateral_categories), false),
      field(joined(shown.vins), false),
    ].join(",");
  });
  return `\uFEFF${[CSV_COLUMNS.join(","), ...rows].map((r) => `${r}\r\n`).join("")}`;
}
