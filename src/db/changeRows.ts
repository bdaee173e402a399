/**
 * What a load changes, as change-feed rows (schema.ts, `changes`): worked
 * out by the loader (load.ts) from each filing's stored rows and the rows
 * it is about to write (changesOf), and written in the same D1 batch as
 * those rows (changeStatements), so a change is visible exactly when what
 * it describes is. A filing that compares unchanged records nothing, so
 * loading a file again records nothing. It lives beside the loader, below
 * the change feed (src/changes), which reads what it writes.
 */
import { type SQL, sql } from "drizzle-orm";
import { AMENDMENT_CHANGES, type ChangedField, type ChangeType } from "../domain/kinds.ts";
import { debtorKey, securedNameWords } from "../domain/names.ts";
import { D1_MAX_PARAMS, type Db } from "./database.ts";
import { changeKeys, NAME_SLOTS_SQL } from "./nameIndex.ts";
import type { FilingRows } from "./records.ts";
import { changeNames, changes } from "./schema.ts";

/**
 * One change to record (its seq and recorded_at are the database's), with
 * the name keys its filing is indexed under (src/db/nameIndex.ts).
 */
export type ChangeRow = Omit<typeof changes.$inferInsert, "seq" | "recordedAt"> & { keys: number[] };

type Party = FilingRows["debtors"][number] | FilingRows["securedParties"][number];

/** What a party row says that the office recorded (not ids, keys or copies of the filing). */
function partyFacts(p: Party): string {
  const label = "industry" in p ? p.industry : p.category;
  return JSON.stringify([p.name, p.type, label, p.street1, p.street2, p.city, p.state, p.zip, p.country]);
}

/**
 * Whether a party list changed; with `additionsExplained`, parties only
 * added (as an assignment or a party amendment adds them) do not count.
 */
function partiesChanged(before: Party[], after: Party[], additionsExplained: boolean): boolean {
  const was = before.map(partyFacts);
  const now = after.map(partyFacts);
  if (was.length === now.length && was.every((p, i) => p === now[i])) return false;
  if (!additionsExplained) return true;
  const kept = new Set(now);
  return !was.every((p) => kept.has(p));
}

/**
 * The parties a change took off its filing (changes.removed_parties), as
 * their stored match forms, which the name rule reads: `d`, debtors' keys
 * (debtor_parties.name_key, debtorKey of name and type); `s`, lenders'
 * words (lender_names.words). A list is left out when empty.
 */
interface RemovedParties {
  d?: string[];
  s?: string[];
}

/** The stored form of removed parties (null: none). */
function removedText(debtors: string[], lenders: string[]): string | null {
  if (debtors.length === 0 && lenders.length === 0) return null;
  const out: RemovedParties = {};
  if (debtors.length > 0) out.d = debtors;
  if (lenders.length > 0) out.s = lenders;
  return JSON.stringify(out);
}

/** Removed parties as stored (null: none). */
export function readRemoved(text: string | null | undefined): { debtorKeys: string[]; lenderWords: string[] } {
  if (!text) return { debtorKeys: [], lenderWords: [] };
  const parsed = JSON.parse(text) as RemovedParties;
  return { debtorKeys: parsed.d ?? [], lenderWords: parsed.s ?? [] };
}

/**
 * The match forms `before` names and `after` does not, each once, by the
 * rules of now (a key stored under older rules is read from the name).
 * A name corrected to one of the same form takes nothing off.
 */
function removedParties(before: FilingRows, after: FilingRows): { debtorKeys: string[]; lenderWords: string[] } {
  const debtorsNow = new Set(after.debtors.map((d) => d.nameKey));
  const lendersNow = new Set(after.securedParties.map((s) => s.nameWords));
  const debtorKeys = before.debtors.map((d) => debtorKey(d.name, d.type)).filter((k) => k !== "" && !debtorsNow.has(k));
  const lenderWords = before.securedParties
    .map((s) => securedNameWords(s.name))
    .filter((w) => w !== "" && !lendersNow.has(w));
  return { debtorKeys: [...new Set(debtorKeys)], lenderWords: [...new Set(lenderWords)] };
}

function amendmentFacts(a: FilingRows["amendments"][number]): string {
  return JSON.stringify([a.filedAt, a.kind, a.description, a.lapseDate, a.collateral]);
}

/**
 * The changes that loading `after` over `before` (undefined: not stored)
 * records: `filing.created` for a new filing; one change per amendment not stored before, by
 * its kind; and `filing.updated` naming the fields whose stored facts
 * changed beyond what those amendments explain (a continuation moves the
 * lapse date, an assignment adds a party); and `filing.lapsed` when it
 * moves a live filing's lapse date to a day the daily job has done
 * (`lapsesThrough`, lapsedBehind). None for an identical filing. Each
 * keeps the parties the load takes off the filing (removedParties), so
 * their watchers are told of it.
 */
export function changesOf(
  before: FilingRows | undefined,
  after: FilingRows,
  lapsesThrough: string | null = null,
): ChangeRow[] {
  const { filing } = after;
  // Parties this load takes off the filing stay with each change it records for it:
  // indexed, filtered and matched to watchlists as the parties it names now are.
  const gone = before ? removedParties(before, after) : { debtorKeys: [], lenderWords: [] };
  const keys = changeKeys(
    [...after.debtors.map((d) => d.nameKey), ...gone.debtorKeys],
    [...after.securedParties.map((s) => s.nameWords), ...gone.lenderWords],
  );
  const base = {
    state: filing.state,
    filingId: filing.id,
    keys,
    removedParties: removedText(gone.debtorKeys, gone.lenderWords),
  };
  const stored = new Map(before?.amendments.map((a) => [a.number, a]));
  const arrived = after.amendments.filter((a) => !stored.has(a.number));
  const amended: ChangeRow[] = arrived.map((a) => ({
    ...base,
    type: AMENDMENT_CHANGES[a.kind],
    amendment: a.number,
    amendmentKind: a.kind,
    occurredAt: a.filedAt,
  }));
  // A new filing's amendments are changes of their own too, so what a file
  // records does not depend on whether a filing and its amendment meet in
  // one write or in two (groups, ranges, an XML amendment read first).
  if (!before) return [{ ...base, type: "filing.created", occurredAt: filing.filedAt }, ...amended];
  const out = amended;
  const now = new Map(after.amendments.map((a) => [a.number, a]));
  const was = before.filing;
  const fields: ChangedField[] = [];
  if (was.filedAt !== filing.filedAt) fields.push("initial_financing_date");
  if (was.kind !== filing.kind) fields.push("filing_kind");
  if (was.officeLapseDate !== filing.officeLapseDate || (arrived.length === 0 && was.lapseDate !== filing.lapseDate)) {
    fields.push("estimated_lien_lapse_date");
  }
  if (was.filingOffice !== filing.filingOffice) fields.push("filing_office");
  if (was.collateral !== filing.collateral) fields.push("collateral");
  const explained = arrived.length > 0;
  if (partiesChanged(before.debtors, after.debtors, explained)) fields.push("debtor_parties");
  if (partiesChanged(before.securedParties, after.securedParties, explained)) fields.push("secured_parties");
  const amendmentChanged = before.amendments.some((a) => {
    const later = now.get(a.number);
    return !later || amendmentFacts(later) !== amendmentFacts(a);
  });
  if (amendmentChanged) fields.push("amendments");
  if (fields.length > 0) {
    out.push({ ...base, type: "filing.updated", changedFields: fields.join("|"), occurredAt: filing.filedAt });
  }
  if (lapsedBehind(was, lapsesThrough) === false && lapsedBehind(filing, lapsesThrough)) {
    out.push({ ...base, type: "filing.lapsed", occurredAt: `${filing.lapseDate}T00:00:00Z` });
  }
  return out;
}

/**
 * Whether a filing counts as lapsed on a day the daily job has done
 * (`lapsesThrough`, change_marks): live, its lapse date on or before it. A
 * load that moves a live filing's lapse date there (an office's correction,
 * an amendment's earlier date) records its `filing.lapsed` itself, since
 * the job, past that day, never will; a later date is the job's to record.
 */
function lapsedBehind(filing: FilingRows["filing"], lapsesThrough: string | null): boolean {
  return (
    lapsesThrough !== null &&
    filing.terminatedAt === null &&
    filing.lapseDate !== null &&
    filing.lapseDate <= lapsesThrough
  );
}

/** Columns of a change row, for sizing inserts within D1's 100 bound parameters. */
const COLUMNS = 9;

/**
 * The database's clock for a new change, never behind the newest change
 * already recorded: `recorded_at` rises with seq, so `since` finds its first
 * change with one seek of changes_recorded.
 */
export const recordedNow = sql`max(unixepoch(), coalesce((select ${changes.recordedAt} from ${changes} order by ${changes.seq} desc limit 1), 0))`;

/**
 * The name-index rows (schema.ts, changeNames) of the last `keys.length`
 * changes recorded, those the statements just before it in the batch wrote,
 * in order: seqs are the database's, consecutive and the newest, so the
 * i-th of them has seq max(seq) - keys.length + 1 + i and is filed under
 * keys[i] (one JSON parameter). It reads no filing id, which for a new
 * filing is the database's too. (`where true`: SQLite reads an upsert's
 * ON CONFLICT after a SELECT without WHERE as a join's ON.)
 */
function nameStatement(db: Db, keys: number[][]) {
  const seq = sql`(select max(${changes.seq}) from ${changes}) - ${keys.length} + 1 + r.key`;
  return db
    .insert(changeNames)
    .select(
      sql`select cast((${seq}) * ${NAME_SLOTS_SQL} + k.key as integer), k.value from json_each(${JSON.stringify(keys)}) r, json_each(r.value) k where true`,
    )
    .onConflictDoNothing();
}

/**
 * INSERTs of `rows`, each within `maxParams` bound parameters, then their
 * name-index rows; `filingId` names a filing the same write inserts
 * (src/db/load.ts, newFilingIds).
 */
export function changeStatements(
  db: Db,
  rows: ChangeRow[],
  maxParams = D1_MAX_PARAMS,
  filingId: (id: number) => number | SQL = (id) => id,
) {
  const perStatement = Math.floor(maxParams / COLUMNS);
  const out = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    out.push(
      db.insert(changes).values(
        rows.slice(i, i + perStatement).map((r) => ({
          state: r.state,
          type: r.type as ChangeType,
          filingId: filingId(r.filingId),
          amendment: r.amendment ?? null,
          amendmentKind: r.amendmentKind ?? null,
          changedFields: r.changedFields ?? null,
          occurredAt: r.occurredAt,
          recordedAt: recordedNow,
          removedParties: r.removedParties ?? null,
        })),
      ),
    );
  }
  if (rows.length === 0) return out;
  return [
    ...out,
    nameStatement(
      db,
      rows.map((r) => r.keys),
    ),
  ];
}
