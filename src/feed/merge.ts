/**
 * Amendments that arrive apart from their filing, and bulk records that add
 * to what is stored rather than replace it.
 *
 * - An amendment line is merged into its filing: replacing an amendment of
 *   the same number (so loading it again changes nothing) and adding the
 *   parties it names that the filing does not list yet.
 * - A filing from a bulk XML file is merged with the stored filing of the
 *   same state and number: its parties and amendments are added to the
 *   stored ones, so amendments loaded earlier (and the parties they added)
 *   stay. Nothing loaded from XML is ever removed; an NDJSON or CSV line,
 *   which carries a filing's whole state, replaces it instead.
 * - An amendment whose filing is not stored yet waits in pending_amendments
 *   and is applied when the filing is loaded.
 */
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../db/database.ts";
import { D1_MAX_PARAMS } from "../db/database.ts";
import { storedFilingStatements, storedRows } from "../db/load.ts";
import { type AmendmentRecord, type FilingRecord, type PartyRecord, partyKey } from "../db/records.ts";
import { pendingAmendments } from "../db/schema.ts";
import type { FilingItem } from "../http/present.ts";

/** The key of a filing: state and number. */
export const filingKey = (state: string, number: string) => `${state}\u0000${number}`;

/** The state and number a filingKey (or a key it begins) names. */
export function filingOfKey(key: string): { state: string; number: string } {
  const [state = "", number = ""] = key.split("\u0000");
  return { state, number };
}

/** What an amendment brings to its filing. */
export interface AmendmentEntry {
  amendment: AmendmentRecord;
  debtors: PartyRecord[];
  securedParties: PartyRecord[];
}

/** `base`'s parties followed by those of `more` it lacks; a label missing on one side is taken from the other. */
function unionParties(base: PartyRecord[], more: PartyRecord[]): PartyRecord[] {
  const out = base.map((p) => ({ ...p }));
  const byKey = new Map(out.map((p) => [partyKey(p), p]));
  for (const p of more) {
    const seen = byKey.get(partyKey(p));
    if (seen) seen.label ??= p.label ?? null;
    else {
      const copy = { ...p };
      out.push(copy);
      byKey.set(partyKey(copy), copy);
    }
  }
  return out;
}

/** `record` with `entry` applied: its amendment in place of any of the same number, its new parties added. */
export function applyAmendment(record: FilingRecord, entry: AmendmentEntry): FilingRecord {
  return {
    ...record,
    debtors: unionParties(record.debtors, entry.debtors),
    securedParties: unionParties(record.securedParties, entry.securedParties),
    amendments: [...record.amendments.filter((a) => a.number !== entry.amendment.number), entry.amendment],
  };
}

/**
 * A bulk record merged with the stored filing: the record's facts (date,
 * kind, lapse, collateral, office) and parties first, then the stored
 * parties it lacks; the stored amendments, with the record's in place of
 * any of the same number.
 */
export function mergeWithStored(record: FilingRecord, stored: FilingRecord): FilingRecord {
  const own = new Set(record.amendments.map((a) => a.number));
  return {
    ...record,
    collateral: record.collateral ?? stored.collateral ?? null,
    filingOffice: record.filingOffice ?? stored.filingOffice ?? null,
    debtors: unionParties(record.debtors, stored.debtors),
    securedParties: unionParties(record.securedParties, stored.securedParties),
    amendments: [...stored.amendments.filter((a) => !own.has(a.number)), ...record.amendments],
  };
}

const addressOf = (p: FilingItem["debtors"][number] | FilingItem["securedParties"][number]) => ({
  street1: p.street1,
  street2: p.street2,
  city: p.city,
  state: p.state,
  zipCode: p.zip,
  country: p.country,
});

/** A stored filing back as the record it was loaded from (loading it again changes nothing). */
export function recordOf({ filing, debtors, securedParties, amendments }: FilingItem): FilingRecord {
  return {
    state: filing.state,
    number: filing.number,
    filedAt: filing.filedAt,
    kind: filing.kind,
    officeLapseDate: filing.officeLapseDate,
    collateral: filing.collateral,
    filingOffice: filing.filingOffice,
    debtors: debtors.map((d) => ({ name: d.name, type: d.type, label: d.industry, address: addressOf(d) })),
    securedParties: securedParties.map((s) => ({
      name: s.name,
      type: s.type,
      label: s.category,
      address: addressOf(s),
    })),
    amendments: amendments.map((a) => ({
      number: a.number,
      filedAt: a.filedAt,
      kind: a.kind,
      description: a.description,
      lapseDate: a.lapseDate,
      collateral: a.collateral,
    })),
  };
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface Keyed {
  state: string;
  number: string;
}

/**
 * The stored filings of `keys`, as records by filingKey, and the pending
 * amendments waiting for them: one D1 batch per 90 numbers.
 */
export async function readStored(
  db: Db,
  keys: Keyed[],
  { pending = true } = {},
): Promise<{ stored: Map<string, FilingRecord>; waiting: Map<string, AmendmentEntry[]> }> {
  const stored = new Map<string, FilingRecord>();
  const waiting = new Map<string, AmendmentEntry[]>();
  const wanted = new Set(keys.map((k) => filingKey(k.state, k.number)));
  for (const part of chunk([...new Set(keys.map((k) => k.number))], D1_MAX_PARAMS - 10)) {
    const [rows, debtors, secured, changes, queued] = await db.batch([
      ...storedFilingStatements(db, part),
      pending
        ? db
            .select()
            .from(pendingAmendments)
            .where(inArray(pendingAmendments.filingNumber, part))
            .orderBy(pendingAmendments.id)
        : db.select().from(pendingAmendments).where(eq(pendingAmendments.id, 0)),
    ]);
    for (const filing of storedRows(rows, debtors, secured, changes)) {
      const key = filingKey(filing.filing.state, filing.filing.number);
      if (wanted.has(key)) stored.set(key, recordOf(filing));
    }
    for (const p of queued) {
      const key = filingKey(p.state, p.filingNumber);
      if (!wanted.has(key)) continue;
      const parties = p.parties ? (JSON.parse(p.parties) as Omit<AmendmentEntry, "amendment">) : null;
      const entry: AmendmentEntry = {
        amendment: {
          number: p.number,
          filedAt: p.filedAt,
          kind: p.kind,
          description: p.description,
          lapseDate: p.lapseDate,
          collateral: p.collateral,
        },
        debtors: parties?.debtors ?? [],
        securedParties: parties?.securedParties ?? [],
      };
      waiting.set(key, [...(waiting.get(key) ?? []), entry]);
    }
  }
  return { stored, waiting };
}

/** Whether any amendment waits for its filing. */
export async function anyPending(db: Db): Promise<boolean> {
  const [row] = await db.select({ id: pendingAmendments.id }).from(pendingAmendments).limit(1);
  return row !== undefined;
}

/** Statements keeping `entries` until their filings arrive (a later copy of the same amendment wins). */
export function keepPendingStatements(db: Db, entries: (AmendmentEntry & Keyed & { source: string })[]) {
  const rows = entries.map((e) => ({
    state: e.state,
    filingNumber: e.number,
    number: e.amendment.number,
    filedAt: e.amendment.filedAt,
    kind: e.amendment.kind,
    description: e.amendment.description,
    lapseDate: e.amendment.lapseDate ?? null,
    collateral: e.amendment.collateral ?? null,
    parties:
      e.debtors.length + e.securedParties.length > 0
        ? JSON.stringify({ debtors: e.debtors, securedParties: e.securedParties })
        : null,
    source: e.source,
  }));
  return chunk(rows, Math.floor(D1_MAX_PARAMS / 10)).map((part) =>
    db
      .insert(pendingAmendments)
      .values(part)
      .onConflictDoUpdate({
        target: [pendingAmendments.state, pendingAmendments.filingNumber, pendingAmendments.number],
        set: Object.fromEntries(
          ["filed_at", "kind", "description", "lapse_date", "collateral", "parties", "source"].map((column) => [
            column.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()),
            sql.raw(`excluded.${column}`),
          ]),
        ),
      }),
  );
}

/** Statements dropping the pending amendments of `keys` (applied now). */
export function dropPendingStatements(db: Db, keys: Keyed[]) {
  return chunk(keys, Math.floor(D1_MAX_PARAMS / 2)).map((part) =>
    db
      .delete(pendingAmendments)
      .where(
        or(...part.map((k) => and(eq(pendingAmendments.state, k.state), eq(pendingAmendments.filingNumber, k.number)))),
      ),
  );
}
