/**
 * A filing as loaded (by the seed, the importer or a test fixture), and its
 * translation into table rows with every derived column filled in: match
 * keys, ZIP5, address keys, lapse date, termination date. This is the only
 * place derived data is computed, so every loader stays consistent.
 */

import { type SQL, sql } from "drizzle-orm";
import {
  COLLATERAL_CATEGORIES,
  type CollateralCategory,
  collateralCategories,
  currentCollateral,
} from "../domain/collateral.ts";
import { ZIP_COUNTRIES } from "../domain/countries.ts";
import { INDUSTRIES } from "../domain/industries.ts";
import type { AmendmentKind, FilingKind, PartyType } from "../domain/kinds.ts";
import { lapseOf, terminatedAt } from "../domain/lifecycle.ts";
import { US_ZIP } from "../domain/limits.ts";
import { debtorKey, securedNameWords } from "../domain/names.ts";
import { securedPartyKind } from "../domain/securedPartyKinds.ts";
import { nameSoundKeys } from "../domain/soundKeys.ts";
import { isStateCode } from "../domain/states.ts";
import { hashKey } from "./encodings.ts";
import type { Amendment, DebtorParty, Filing, facetTallies, SecuredParty } from "./schema.ts";

/** An address as the office recorded it: a part it did not record is null (or absent). */
export interface AddressRecord {
  street1: string | null;
  street2?: string | null;
  city: string | null;
  /** A US state code, or a foreign region as written. */
  state: string | null;
  /** A US ZIP (five digits or ZIP+4), or a foreign postal code as written. */
  zipCode: string | null;
  /** ISO 3166-1 alpha-2. */
  country?: string | null;
}

export interface PartyRecord {
  name: string;
  type: PartyType;
  /** Debtor industry, or secured-party category. */
  label?: string | null;
  address: AddressRecord;
}

export interface AmendmentRecord {
  number: string;
  /** ISO 8601 UTC with Z. */
  filedAt: string;
  kind: AmendmentKind;
  description: string;
  /** The lapse date (YYYY-MM-DD) the office recorded with this amendment. */
  lapseDate?: string | null;
  /** Collateral text filed with this amendment. */
  collateral?: string | null;
}

export interface FilingRecord {
  state: string;
  number: string;
  /** ISO 8601 UTC with Z. */
  filedAt: string;
  kind: FilingKind;
  /** The lapse date (YYYY-MM-DD) the office gave with the filing; absent or null when it gave none. */
  officeLapseDate?: string | null;
  collateral?: string | null;
  filingOffice?: string | null;
  debtors: PartyRecord[];
  securedParties: PartyRecord[];
  amendments: AmendmentRecord[];
}

/** Rows of one filing (parties and amendments keyed by the filing's id and their position). */
export interface FilingRows {
  filing: Filing;
  debtors: DebtorParty[];
  securedParties: SecuredParty[];
  amendments: Amendment[];
  /**
   * Its listed form (src/db/listed.ts): as stored, of a filing read back; to
   * be written, of one loaded. None (null or absent) on a filing without a
   * change the feed keeps that is not live and lapsing soon (inLapseWindow).
   */
  listed?: string | null;
}

/** Whether an address is in the United States (or a territory using US ZIPs), as far as it says. */
function isUsAddress(a: Pick<AddressRecord, "state" | "country">): boolean {
  if (a.country != null) return ZIP_COUNTRIES.has(a.country);
  return a.state == null || isStateCode(a.state);
}

const squash = (s: string | null | undefined) =>
  (s ?? "")
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();

/** First five digits of a valid US ZIP, the postal-code search key; null otherwise. */
function zip5Of(a: AddressRecord): string | null {
  return isUsAddress(a) && a.zipCode != null && US_ZIP.test(a.zipCode) ? a.zipCode.slice(0, 5) : null;
}

/**
 * Normalized street, street2, city, state and ZIP5 (or postal code and
 * country): equal texts are one address.
 */
function addressText(a: AddressRecord): string {
  const key = [squash(a.street1), squash(a.street2), squash(a.city), a.state ?? "", zip5Of(a) ?? squash(a.zipCode)];
  // A foreign address is told apart by its country too.
  if (!isUsAddress(a)) key.push(a.country ?? "");
  return key.join("|");
}

function addressColumns(a: AddressRecord) {
  return {
    street1: a.street1,
    street2: a.street2 ?? null,
    city: a.city,
    state: a.state,
    zip: a.zipCode,
    country: a.country ?? null,
  };
}

/** The key two parties share when they are the same party at the same address. */
export function partyKey(p: PartyRecord): string {
  return `${p.name.toLowerCase()}\u0000${addressText(p.address)}`;
}

/** The trait bit of a filing with a secured party of kind `funding_company` (schema.ts, filings.traits). */
export const FUNDING_TRAIT = 1 << 15;

/** The bit of a collateral category in filings.traits: its place in COLLATERAL_CATEGORIES. */
export const categoryBit = (index: number) => 1 << index;

/**
 * What the lien report counts of a filing (schema.ts, filings.traits): the
 * categories of its current collateral and whether a funding company is
 * among its secured parties.
 */
export function traitsOf(record: {
  collateral?: string | null | undefined;
  amendments: readonly { filedAt: string; number: string; collateral?: string | null | undefined }[];
  securedParties: readonly { name: string }[];
}): number {
  let traits = 0;
  for (const { category } of collateralCategories(currentCollateral(record.collateral, record.amendments))) {
    traits |= categoryBit(COLLATERAL_CATEGORIES.indexOf(category));
  }
  if (record.securedParties.some((p) => securedPartyKind(p.name) === "funding_company")) traits |= FUNDING_TRAIT;
  return traits;
}

/** The collateral categories a filing's traits record (traitsOf). */
export function traitCategories(traits: number): Set<CollateralCategory> {
  return new Set(COLLATERAL_CATEGORIES.filter((_, i) => (traits & categoryBit(i)) !== 0));
}

/** Rows for one filing, with `id` as its primary key. */
export function toRows(record: FilingRecord, id: number): FilingRows {
  const state = record.state.toUpperCase();
  const shared = { filingId: id, filingState: state, filedAt: record.filedAt, filingNumber: record.number };
  const debtorTypes = setOf(record.debtors.map((d) => d.type));
  const debtorIndustries = industrySet(record.debtors.map((d) => d.label));
  const lapse = lapseOf(record.kind, record.filedAt, record.amendments, record.officeLapseDate ?? null);
  const terminated = terminatedAt(record.amendments);
  // Copied onto the parties (schema.ts, lapseCopy): the lapse date of a live filing.
  const lapsesOn = terminated === null ? lapse.date : null;
  return {
    filing: {
      id,
      state,
      number: record.number,
      filedAt: record.filedAt,
      kind: record.kind,
      lapseDate: lapse.date,
      lapseSource: lapse.source,
      officeLapseDate: record.officeLapseDate ?? null,
      collateral: record.collateral ?? null,
      filingOffice: record.filingOffice ?? null,
      terminatedAt: terminated,
      traits: traitsOf(record),
      revision: 0,
    },
    debtors: record.debtors.map((p, position) => ({
      ...shared,
      position,
      type: p.type,
      name: p.name,
      nameKey: debtorKey(p.name, p.type),
      industry: p.label ?? null,
      ...addressColumns(p.address),
      zip5: zip5Of(p.address),
      addressKey: hashKey(addressText(p.address)),
      lapsesOn,
    })),
    securedParties: record.securedParties.map((p, position) => ({
      ...shared,
      position,
      type: p.type,
      name: p.name,
      nameWords: securedNameWords(p.name),
      category: p.label ?? null,
      ...addressColumns(p.address),
      lapsesOn,
      debtorTypes,
      debtorIndustries,
    })),
    amendments: record.amendments.map((a, position) => ({
      filingId: id,
      position,
      number: a.number,
      filedAt: a.filedAt,
      kind: a.kind,
      description: a.description,
      lapseDate: a.lapseDate ?? null,
      collateral: a.collateral ?? null,
    })),
  };
}

/**
 * The industries of INDUSTRIES among `labels`, as a setMask over it reads
 * back (secured_parties.debtor_industries); other labels cannot be asked for.
 */
export function industrySet(labels: Iterable<string | null | undefined>): string {
  return setOf([...labels].filter((l) => (INDUSTRIES as readonly (string | null | undefined)[]).includes(l)));
}

/** A set of labels as stored in one column: distinct, sorted, joined with "|". */
function setOf(labels: Iterable<string | null | undefined>): string {
  return [...new Set([...labels].filter((l): l is string => l != null && l !== ""))].sort().join("|");
}

/** A debtor name's sound key in a state (see src/domain/soundKeys.ts), before its name id is known. */
export interface SoundKeyRow {
  key: number;
  state: string;
  nameKey: string;
}

/**
 * The sound keys of debtor names, each spelling of a debtor counted, for
 * similar-name search (written by src/db/soundKeys.ts once the per-name
 * rows, debtor_names, are refreshed).
 */
export function soundKeyRows(debtors: Iterable<{ name: string; nameKey: string; filingState: string }>): SoundKeyRow[] {
  const out = new Map<string, SoundKeyRow>();
  for (const d of debtors) {
    if (d.nameKey === "") continue;
    for (const key of nameSoundKeys(d.name)) {
      out.set(`${key}|${d.filingState}|${d.nameKey}`, { key, state: d.filingState, nameKey: d.nameKey });
    }
  }
  return [...out.values()];
}

/**
 * A count by day of a facet (scope of facet_tallies), or, scope "w"
 * (LAPSE_SETS), of the "x" facet's sets: place the state, name the exact
 * industry set (schema.ts, facet_tallies.sets; written by tallies.ts).
 */
export type FacetDay = Omit<typeof facetTallies.$inferInsert, "through" | "sets" | "scope"> & {
  scope: (typeof facetTallies.$inferInsert)["scope"] | typeof LAPSE_SETS;
};

/** The scope of a FacetDay that counts a lapse day's exact industry set ("x" facet's sets). */
export const LAPSE_SETS = "w";

/** The facets dated by lapse (schema.ts): every day kept, none old, none aged (tallies.ts). */
export const LAPSE_DATED: ReadonlySet<FacetDay["scope"]> = new Set(["x", "y", "k"]);

/** The facet of a "k" row that counts a shared prefix's filings again, as "o" does by filing day (schema.ts). */
export const SHARED_PREFIX = "+";

/**
 * Each whole-word prefix that two or more of a filing's lender names start
 * with, and how many of them do less one: what a sum of the "l" facets
 * under that prefix counts the filing more than once ("o" facets, schema.ts).
 */
function sharedPrefixes(names: Set<string>): Map<string, number> {
  const out = new Map<string, number>();
  if (names.size < 2) return out;
  const prefixes = new Set(
    [...names].flatMap((n) => n.split(" ").map((_, i, words) => words.slice(0, i + 1).join(" "))),
  );
  for (const prefix of prefixes) {
    const under = [...names].filter((n) => n === prefix || n.startsWith(`${prefix} `)).length;
    if (under > 1) out.set(prefix, under - 1);
  }
  return out;
}

/**
 * The place of a lender's "k" facet day that counts only the filings whose
 * debtors hold the industries `term` (one letter, or two in order: a pair,
 * as industryFacets names them):
 * the state and the term. It is kept in the state's month row of the
 * facet, under the term (schema.ts, facet_tallies.industries; tallies.ts),
 * with no row of its own. A list by lender and one or two industries is
 * counted from these, by inclusion-exclusion (src/queries/lapsing.ts).
 */
const lenderPlace = (state: string, term: string) => `${state}${INDUSTRY_PLACE}${term}`;

/** What separates the state and the industry term in a lender facet's place under a term (lenderPlace). */
export const INDUSTRY_PLACE = ":";

/** Whether a facet's place is a lender's under an industry term (lenderPlace): kept in its state's month rows. */
export const isIndustryPlace = (place: string) => place.includes(INDUSTRY_PLACE);

/** The facet of "s" and "z" that counts every filing of its place once, whatever its industries (schema.ts). */
export const ANY_FACET = "*";

/**
 * An industry of INDUSTRIES as one letter ("a" for the first), the form of
 * industry sets in a state's facets: a set is its letters in order ("ak").
 */
export function industryLetter(industry: string): string | undefined {
  const code = INDUSTRIES.indexOf(industry as (typeof INDUSTRIES)[number]);
  return code < 0 ? undefined : String.fromCharCode(97 + code);
}

/**
 * industryLetter in SQL, of a stored industry (`column`, debtor_parties.
 * industry: an INDUSTRIES position, or text for another label): its letter,
 * or null for a label that is not one of them.
 */
export const industryLetterSql = (column: SQL) =>
  sql`(case when typeof(${column}) in ('integer', 'real') then char(97 + cast(${column} as integer)) end)`;

/** The facet name of an industry set of `size` (one hex digit): `prefix` "e" exact, "i" included. */
export const industryFacetName = (prefix: "e" | "i", size: number) => `${prefix}${size.toString(16)}`;

/** Industry sets larger than this are counted by their exact facets only (see industryFacets). */
export const INCLUDED_MAX = 2;

/**
 * A place's facets of a filing by its debtors' industries (those of
 * INDUSTRIES; other labels cannot be asked for): a state's of all its
 * debtors, a ZIP5's of its debtors there; beside "*":
 * - its exact set F, named "e" and its size ("e0" with facet "" when none);
 * - each subset T of F of one or two industries, named "i" and its size.
 * "Filings with a debtor in one of S" is then a few facets whatever the
 * data (src/queries/filings.ts, industryCount): by inclusion-exclusion,
 * the "i1" facets of S minus its "i2" facets, exact for every filing with
 * at most two of S, corrected from the exact facets of larger sets; or,
 * for a large S, "*" minus the exact facets of sets that avoid S.
 */
function industryFacets(industries: (string | null)[]): { name: string; facet: string }[] {
  const letters = [...new Set(industries.flatMap((i) => (i === null ? [] : (industryLetter(i) ?? []))))].sort();
  const out = [{ name: industryFacetName("e", letters.length), facet: letters.join("") }];
  letters.forEach((a, i) => {
    out.push({ name: industryFacetName("i", 1), facet: a });
    for (const b of letters.slice(i + 1)) out.push({ name: industryFacetName("i", 2), facet: `${a}${b}` });
  });
  return out;
}

/** Day bucket of every day before the recency window's reach. */
export const OLD_DAYS = "0000-00-00";

/** The lapse "day" of a live filing that never lapses, after every real one ("x" facets, schema.ts). */
const NEVER_LAPSES = "9999-12-31";

/**
 * The facets of each filing (see facetCounts in schema.ts), counted by day:
 * `sign` 1 for filings added, -1 for filings removed. Days before
 * `cutoffDay` go to the OLD_DAYS bucket.
 */
export function facetDayRows(rows: FilingRows[], cutoffDay: string, sign: 1 | -1 = 1): FacetDay[] {
  const counts = new Map<string, FacetDay>();
  const add = (scope: FacetDay["scope"], place: string, name: string, facet: string, at: string, weight = 1) => {
    // Lapse days are all kept: a lapse window is any range of days.
    const dated = LAPSE_DATED.has(scope) || scope === LAPSE_SETS;
    const day = !dated && at.slice(0, 10) < cutoffDay ? OLD_DAYS : at.slice(0, 10);
    const id = [scope, place, name, facet, day].join("\u0000");
    const seen = counts.get(id);
    if (seen) seen.filings += sign * weight;
    else counts.set(id, { scope, place, name, facet, day, filings: sign * weight });
  };
  for (const { filing, debtors, securedParties } of rows) {
    const industries = industryFacets(debtors.map((d) => d.industry));
    for (const f of industries) add("s", filing.state, f.name, f.facet, filing.filedAt);
    add("s", filing.state, "", ANY_FACET, filing.filedAt);
    for (const zip5 of new Set(debtors.flatMap((d) => (d.zip5 === null ? [] : [d.zip5])))) {
      for (const f of industryFacets(debtors.filter((d) => d.zip5 === zip5).map((d) => d.industry)))
        add("z", zip5, f.name, f.facet, filing.filedAt);
      add("z", zip5, "", ANY_FACET, filing.filedAt);
    }
    const types = setOf(debtors.map((d) => d.type));
    const lenders = new Set(securedParties.map((s) => s.nameWords));
    for (const name of lenders) add("l", filing.state, name, types, filing.filedAt);
    for (const [prefix, extra] of sharedPrefixes(lenders)) add("o", filing.state, prefix, types, filing.filedAt, extra);
    if (filing.terminatedAt) add("t", filing.state, "", "", filing.terminatedAt);
    else {
      add("x", filing.state, "", "", filing.lapseDate ?? NEVER_LAPSES);
      // A lapse list's count by industry (lapsing.ts) reads the "x" facet's sets of one or two
      // industries (LAPSE_SETS) and, for a larger exact set, its "y" facet.
      if (filing.lapseDate !== null) {
        // A lapse list's count by lender (lapsing.ts): each lender name's, less what prefixes shared count twice;
        // by lender and one or two industries, the same under each industry and pair its debtors hold.
        // The terms are the filing's industries one by one and two by two: its "i1" and "i2" facets.
        const terms = industries.filter((f) => f.name.startsWith("i")).map((f) => f.facet);
        const places = [filing.state, ...terms.map((t) => lenderPlace(filing.state, t))];
        const shared = sharedPrefixes(lenders);
        for (const place of places) {
          for (const name of lenders) add("k", place, name, "", filing.lapseDate);
          for (const [prefix, extra] of shared) add("k", place, prefix, SHARED_PREFIX, filing.lapseDate, extra);
        }
        for (const f of industries) {
          if (!f.name.startsWith("e") || f.facet.length === 0) continue;
          if (f.facet.length > INCLUDED_MAX) add("y", filing.state, f.name, f.facet, filing.lapseDate);
          else add(LAPSE_SETS, filing.state, f.facet, "", filing.lapseDate);
        }
      }
    }
  }
  return [...counts.values()].filter((c) => c.filings !== 0);
}
