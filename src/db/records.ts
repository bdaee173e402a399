/**
 * A filing as loaded (by the seed, the importer or a test fixture), and its
 * translation into table rows with every derived column filled in: match
 * keys, ZIP5, address keys, lapse date, termination date. This is the only
 * place derived data is computed, so every loader stays consistent.
 */

import { type AmendmentKind, type FilingKind, lapseDate, terminatedAt } from "../domain/lifecycle.ts";
import { debtorNameKey, securedNameWords } from "../domain/names.ts";
import { nameSoundKeys } from "../domain/soundKeys.ts";
import type { amendments, debtorParties, facetDays, filings, securedParties } from "./schema.ts";

export interface AddressRecord {
  street1: string;
  street2?: string | null;
  city: string;
  state: string;
  zipCode: string;
  country?: string | null;
}

export interface PartyRecord {
  name: string;
  type: "Individual" | "Organization";
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
}

export interface FilingRecord {
  state: string;
  number: string;
  /** ISO 8601 UTC with Z. */
  filedAt: string;
  kind: FilingKind;
  debtors: PartyRecord[];
  securedParties: PartyRecord[];
  amendments: AmendmentRecord[];
}

export interface FilingRows {
  filing: typeof filings.$inferInsert;
  debtors: (typeof debtorParties.$inferInsert)[];
  securedParties: (typeof securedParties.$inferInsert)[];
  amendments: (typeof amendments.$inferInsert)[];
}

function addressColumns(a: AddressRecord) {
  const zip5 = a.zipCode.slice(0, 5);
  const state = a.state.toUpperCase();
  const squash = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, " ")
      .trim();
  return {
    street1: a.street1,
    street2: a.street2 ?? null,
    city: a.city,
    state,
    zip: a.zipCode,
    zip5,
    country: a.country ?? null,
    addressKey: [squash(a.street1), squash(a.street2 ?? ""), squash(a.city), state, zip5].join("|"),
  };
}

/** Rows for one filing, with `id` as its primary key. */
export function toRows(record: FilingRecord, id: number): FilingRows {
  const state = record.state.toUpperCase();
  const shared = { filingId: id, filingState: state, filedAt: record.filedAt, filingNumber: record.number };
  const debtorTypes = setOf(record.debtors.map((d) => d.type));
  return {
    filing: {
      id,
      state,
      number: record.number,
      filedAt: record.filedAt,
      kind: record.kind,
      lapseDate: lapseDate(record.kind, record.filedAt, record.amendments),
      terminatedAt: terminatedAt(record.amendments),
    },
    debtors: record.debtors.map((p, position) => ({
      ...shared,
      position,
      type: p.type,
      name: p.name,
      nameKey: debtorNameKey(p.name),
      industry: p.label ?? null,
      ...addressColumns(p.address),
    })),
    securedParties: record.securedParties.map((p, position) => ({
      ...shared,
      position,
      name: p.name,
      nameWords: securedNameWords(p.name),
      category: p.label ?? null,
      ...addressColumns(p.address),
      debtorTypes,
    })),
    amendments: record.amendments.map((a) => ({
      filingId: id,
      number: a.number,
      filedAt: a.filedAt,
      kind: a.kind,
      description: a.description,
    })),
  };
}

/** A set of labels as stored in one column: distinct, sorted, joined with "|". */
export function setOf(labels: Iterable<string | null | undefined>): string {
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

export type FacetDay = Omit<typeof facetDays.$inferInsert, "running">;

/** Day bucket of every day before the recency window's reach. */
export const OLD_DAYS = "0000-00-00";

/**
 * The facets of each filing (see facetCounts in schema.ts), counted by day:
 * `sign` 1 for filings added, -1 for filings removed. Days before
 * `cutoffDay` go to the OLD_DAYS bucket.
 */
export function facetDayRows(rows: FilingRows[], cutoffDay: string, sign: 1 | -1 = 1): FacetDay[] {
  const counts = new Map<string, FacetDay>();
  const add = (scope: FacetDay["scope"], place: string, name: string, facet: string, at: string) => {
    const day = at.slice(0, 10) < cutoffDay ? OLD_DAYS : at.slice(0, 10);
    const id = [scope, place, name, facet, day].join("\u0000");
    const seen = counts.get(id);
    if (seen) seen.filings += sign;
    else counts.set(id, { scope, place, name, facet, day, filings: sign });
  };
  for (const { filing, debtors, securedParties } of rows) {
    add("s", filing.state, "", setOf(debtors.map((d) => d.industry)), filing.filedAt);
    for (const zip5 of new Set(debtors.map((d) => d.zip5))) {
      add("z", zip5, "", setOf(debtors.filter((d) => d.zip5 === zip5).map((d) => d.industry)), filing.filedAt);
    }
    const types = setOf(debtors.map((d) => d.type));
    for (const name of new Set(securedParties.map((s) => s.nameWords)))
      add("l", filing.state, name, types, filing.filedAt);
    if (filing.terminatedAt) add("t", filing.state, "", "", filing.terminatedAt);
  }
  return [...counts.values()].filter((c) => c.filings !== 0);
}
