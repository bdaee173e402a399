/**
 * A filing as loaded (by the seed, the importer or a test fixture), and its
 * translation into table rows with every derived column filled in: match
 * keys, ZIP5, address keys, lapse date, termination date. This is the only
 * place derived data is computed, so every loader stays consistent.
 */

import { type AmendmentKind, type FilingKind, lapseDate, terminatedAt } from "../domain/lifecycle.ts";
import { debtorNameKey, securedNameWords, significantWords, wordSound } from "../domain/names.ts";
import type {
  amendments,
  debtorNameSounds,
  debtorNames,
  debtorParties,
  filingDayCounts,
  filings,
  securedParties,
} from "./schema.ts";

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
  const shared = { filingId: id, filingState: state, filedAt: record.filedAt };
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

export interface NameIndexRows {
  names: (typeof debtorNames.$inferInsert)[];
  sounds: (typeof debtorNameSounds.$inferInsert)[];
}

/**
 * The similar-name index entries that `rows` contribute: per debtor key and
 * state, how many of these filings name it and its latest spelling; and the
 * sounds of the words of every spelling seen. The loader adds the counts to
 * what is already stored.
 */
export function nameIndexRows(rows: FilingRows[]): NameIndexRows {
  const names = new Map<string, typeof debtorNames.$inferInsert>();
  const sounds = new Map<string, typeof debtorNameSounds.$inferInsert>();
  for (const { debtors } of rows) {
    const onThisFiling = new Set<string>();
    for (const d of debtors) {
      if (d.nameKey === "") continue;
      const id = `${d.nameKey}|${d.filingState}`;
      for (const word of significantWords(d.name)) {
        const sound = wordSound(word);
        sounds.set(`${sound}|${id}`, { sound, state: d.filingState, nameKey: d.nameKey });
      }
      if (onThisFiling.has(id)) continue;
      onThisFiling.add(id);
      const seen = names.get(id);
      if (!seen) {
        names.set(id, {
          nameKey: d.nameKey,
          state: d.filingState,
          name: d.name,
          lastFiledAt: d.filedAt,
          filingCount: 1,
        });
      } else {
        seen.filingCount = (seen.filingCount ?? 0) + 1;
        if (d.filedAt >= seen.lastFiledAt) Object.assign(seen, { name: d.name, lastFiledAt: d.filedAt });
      }
    }
  }
  return { names: [...names.values()], sounds: [...sounds.values()] };
}

/** The day counts `rows` add: per state and day, overall ("") and per debtor industry. */
export function dayCountRows(rows: FilingRows[]): (typeof filingDayCounts.$inferInsert)[] {
  const counts = new Map<string, typeof filingDayCounts.$inferInsert>();
  const add = (state: string, industry: string, day: string) => {
    const id = `${state}|${industry}|${day}`;
    const seen = counts.get(id);
    if (seen) seen.filings += 1;
    else counts.set(id, { state, industry, day, filings: 1 });
  };
  for (const { filing, debtors } of rows) {
    const day = filing.filedAt.slice(0, 10);
    add(filing.state, "", day);
    for (const industry of new Set(debtors.map((d) => d.industry).filter((i) => i != null))) {
      add(filing.state, industry, day);
    }
  }
  return [...counts.values()];
}
