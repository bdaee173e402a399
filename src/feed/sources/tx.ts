/**
 * The Texas Secretary of State's UCC register, as its bulk order files give
 * it (docs/sources/tx.md; layouts in txLayout.ts): a master unload and daily
 * filing updates, one record a line. A filing is its master record (code
 * 1: kind, status, expiration date), its debtors and secured parties (codes
 * 2 to 5), its UCC records (code 6: type `MR` is the filing itself and gives
 * its filing date, any other an amendment) and its collateral lines (code
 * 7). A file's records of a filing are the filing's whole record as of that
 * file, so a load replaces the rows earlier loads staged for each filing it
 * names (`replaces`, bulk.ts): a daily update's filing is its new record.
 */
import { AMENDMENT_STRENGTH, type AmendmentKind, type FilingKind } from "../../domain/kinds.ts";
import type { FeedWarning } from "../schema.ts";
import type { BulkSource } from "./bulk.ts";
import {
  compareIds,
  distinctParties,
  fitDescription,
  individualName,
  kindOfWords,
  type LienParty,
  lookup,
  rowHash,
  type Unrecognised,
} from "./codes.ts";
import type { SodaRow } from "./soda.ts";
import type { Assembled, PartyColumnNames, SourceTable, StagedRow } from "./source.ts";
import { txFilingsOf, txRecords } from "./txLayout.ts";

/** Filing types (code 1) as filing kinds; blank is an ordinary financing statement. */
const FILING_TYPES: Record<string, FilingKind> = {
  A: "agricultural_lien",
  // County continuation: a financing statement first filed in a county, continued at the state's office.
  C: "standard",
  F: "federal_tax_lien",
  M: "manufactured_home",
  P: "public_finance",
  // Restitution lien (Code of Criminal Procedure art. 42.22): a lien, the office's expiration date or a lien's long term.
  R: "other_lien",
  S: "transmitting_utility",
  // Transition property (Utilities Code 39.309): a utility securitization's statutory lien.
  T: "other_lien",
  // Utility security instrument (Business & Commerce Code ch. 261): effective until released, as a transmitting utility's filing.
  U: "transmitting_utility",
};

const STATUSES: Record<string, "active" | "lapsed"> = { A: "active", L: "lapsed" };

/** The code 6 type that is the filing's own record. */
const OWN = "MR";

/** Amendment types (code 6): their words, and the kind each gives (null: read from the record, AM). */
const AMENDMENT_TYPES: Record<string, { words: string; kind: AmendmentKind | null }> = {
  A: { words: "Assignment", kind: "assignment" },
  AM: { words: "Amendment", kind: null },
  C: { words: "Continuation", kind: "continuation" },
  // A court's finding (a fraudulent filing, Government Code 51.903): its effect is the court's, not stated here.
  J: { words: "Judicial finding", kind: "other" },
  O: { words: "Correction", kind: "other" },
  // Revoked: what was revoked (the filing, or a record against it) is not said, so it changes no status.
  RV: { words: "Revoked", kind: "other" },
  T: { words: "Termination", kind: "termination" },
};

/** Collateral lines are this wide: a line that fills it was cut mid-text and runs on into the next. */
const COLLATERAL_WIDTH = 80;

const TAB = "tx";

const table: SourceTable = {
  tab: TAB,
  dataset: "UCC bulk order: master unload and daily filing update",
  title: "UCC records",
  marks: ["code", "filing"],
  dates: [],
  flags: [],
  key(row) {
    const { code, filing } = row;
    if (!filing) return { error: "initial filing number: blank: the record names no filing" };
    const id = (...parts: (string | undefined)[]) => ({
      rowId: [code, filing, ...parts].join("|"),
      filing,
      part: null,
    });
    if (code === "1") return id();
    if (code === "6" && row.record) return id(row.record, row.amendment ?? "");
    if (code === "7" && row.seq) return id(row.ucc3 ?? "", row.seq);
    // Parties carry no id: a party is its facts (a daily update's corrected party replaces it: the load replaces the filing's rows).
    return id(rowHash(row, []));
  },
};

const byName = (a: StagedRow, b: StagedRow) =>
  (a.fields.code ?? "").localeCompare(b.fields.code ?? "") ||
  (a.fields.name ?? a.fields.last ?? "").localeCompare(b.fields.name ?? b.fields.last ?? "") ||
  a.rowId.localeCompare(b.rowId);

/** A party record (codes 2 to 5) as a party: an organization's name, or a person's parts as `LAST, FIRST MIDDLE SUFFIX`. */
function partyOf(row: SodaRow): LienParty | null {
  const { zip, zip4 } = row;
  const address: LienParty["address"] = {
    ...(row.street !== undefined ? { street1: row.street } : {}),
    ...(row.city !== undefined ? { city: row.city } : {}),
    ...(row.state !== undefined ? { state: row.state } : {}),
    ...(zip !== undefined ? { zip_code: zip4 ? `${zip}-${zip4}` : zip } : {}),
    ...(row.country !== undefined ? { country: row.country } : {}),
  };
  if (row.code === "2" || row.code === "4") return row.name ? { name: row.name, type: "Organization", address } : null;
  const name = individualName({ last: row.last, first: row.first, middle: row.middle, suffix: row.suffix });
  return name ? { name, type: "Individual", address } : null;
}

function partiesOf(rows: StagedRow[]) {
  const pairs = [...rows].sort(byName).flatMap((row) => {
    const party = partyOf(row.fields);
    return party ? [{ ...party, row }] : [];
  });
  const kept = distinctParties(pairs);
  return { parties: kept.map(({ row: _, ...p }) => p), rows: kept.map((p) => p.row) };
}

/**
 * Collateral lines as one text: the filing's own lines, then each UCC-3's
 * that brought some (in the order of `ucc3s`, their records' dates), each
 * in sequence order and starting a line, since a UCC-3 may number its lines
 * from 1 again. Within them a line that fills its 80 characters runs on
 * into the next (the office cut the text there); a shorter one ends a line.
 */
function collateralOf(lines: StagedRow[], ucc3s: readonly string[]): string | undefined {
  const rank = (line: StagedRow) => {
    const ucc3 = line.fields.ucc3;
    if (ucc3 === undefined) return -1;
    const at = ucc3s.indexOf(ucc3);
    return at === -1 ? ucc3s.length : at;
  };
  const sorted = [...lines].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      compareIds(a.fields.ucc3 ?? "", b.fields.ucc3 ?? "") ||
      Number(a.fields.seq ?? 0) - Number(b.fields.seq ?? 0) ||
      a.rowId.localeCompare(b.rowId),
  );
  let text = "";
  let runsOn = false;
  let group: string | undefined;
  for (const line of sorted) {
    const piece = line.fields.text ?? "";
    const sameGroup = line.fields.ucc3 === group;
    text += text === "" || (runsOn && sameGroup) ? piece : `\n${piece}`;
    runsOn = piece.length >= COLLATERAL_WIDTH;
    group = line.fields.ucc3;
  }
  return text.trim() === "" ? undefined : text;
}

/** An AM amendment's kind, from what it brought: collateral lines, or a history comment's words. */
function amendedKind(comment: string | undefined, bringsCollateral: boolean): AmendmentKind {
  if (bringsCollateral || /collateral/i.test(comment ?? "")) return "collateral_change";
  if (/\b(debtor|secured|part(y|ies)|name|address|assign)/i.test(comment ?? "")) return "party_change";
  return "other";
}

/** `Amendment: DEBTOR ADDRESS CHANGED`. */
const describe = (words: string, comment: string | undefined) => (comment ? `${words}: ${comment}` : words);

/** A UCC record's date: its filing date, or where the office left that blank its entry date (42-49). */
const dateOf = (row: StagedRow) => row.fields.filed ?? row.fields.entered;

const byDate = (a: StagedRow, b: StagedRow) =>
  (dateOf(a) ?? "").localeCompare(dateOf(b) ?? "") ||
  (a.fields.time ?? "").localeCompare(b.fields.time ?? "") ||
  compareIds(a.fields.record ?? "", b.fields.record ?? "") ||
  a.rowId.localeCompare(b.rowId);

const byPlace = (a: StagedRow, b: StagedRow) => a.file.localeCompare(b.file) || a.line - b.line;

function assemble(filing: string, staged: StagedRow[], unrecognised: Unrecognised): Assembled[] {
  const rows = [...staged].sort(byPlace);
  const of = (...codes: string[]) => rows.filter((r) => codes.includes(r.fields.code ?? ""));
  const [master] = of("1");
  const records = of("6").sort(byDate);
  const own = records.find((r) => r.fields.amendment?.toUpperCase() === OWN);
  const [first] = rows;
  if (!first) return [];
  if (!master || !own) {
    const missing = master
      ? "no UCC record of type MR (code 6), the filing's own, which gives its filing date"
      : "no master record (code 1)";
    return [
      {
        entry: {},
        rows,
        from: { filing: first, debtors: [], secured: [], amendments: [] },
        notes: [],
        reject: `filing ${filing}: ${missing} among its ${rows.length} records in the files of this load: not loaded (a file gives a filing's records whole)`,
      },
    ];
  }
  const m = master.fields;
  const notes: FeedWarning[] = [];
  const kind = filingKind(m.type, unrecognised, notes);
  const lapsed =
    m.status !== undefined &&
    lookup<string | null>(STATUSES, "status", m.status, unrecognised, () => null) === "lapsed";
  if (lapsed && m.expires === undefined) {
    notes.push({
      path: ["estimated_lien_lapse_date"],
      message: "the office marks it lapsed (L) but gives no expiration date: its lapse date is estimated from its kind",
    });
  }
  if (own.fields.filed === undefined && own.fields.entered !== undefined) {
    notes.push({
      path: ["initial_financing_date"],
      message: "its own UCC record (MR) gives no filing date: dated by its entry date",
    });
  }
  const lines = of("7");
  const kinds = new Map<string, AmendmentKind>();
  const amendmentRows = records.filter((r) => r !== own && r.fields.amendment?.toUpperCase() !== OWN);
  const lastContinuation = amendmentRows.filter((r) => r.fields.amendment?.toUpperCase() === "C").at(-1);
  // A UCC-3 recorded under two types (an assignment and an amendment) is one amendment: its records together.
  const byNumber = new Map<string, StagedRow[]>();
  for (const row of amendmentRows) {
    const f = row.fields;
    const number = f.record ?? `${filing}-${(f.amendment ?? "").toUpperCase() || "record"}-${f.filed ?? row.line}`;
    byNumber.set(number, [...(byNumber.get(number) ?? []), row]);
  }
  const amendments = [...byNumber].map(([number, group]) => {
    const found: AmendmentKind[] = [];
    const words: string[] = [];
    for (const { fields: f } of group) {
      const known = AMENDMENT_TYPES[(f.amendment ?? "").toUpperCase()];
      if (!known) unrecognised.note("amendment type", f.amendment ?? "(blank)");
      const brings = lines.some((l) => l.fields.ucc3 !== undefined && l.fields.ucc3 === f.record);
      if (known) found.push(known.kind ?? amendedKind(f.comment, brings));
      words.push(describe(known?.words ?? (f.amendment || "Record"), f.comment));
    }
    const kind = AMENDMENT_STRENGTH.find((k) => found.includes(k));
    if (kind) kinds.set(number, kind);
    // A record the office left undated is dated by its entry into the register: a termination is not lost for it.
    const date = group.map(dateOf).find((d) => d !== undefined);
    return {
      amendment_financing_number: number,
      amendment_financing_date: date,
      amendment_financing_type_description: fitDescription(words.join("; ")),
      // The expiration date on the master record is the latest continuation's: counted once, not again from the kind's term.
      ...(lastContinuation && group.includes(lastContinuation) && m.expires !== undefined
        ? { amendment_lapse_date: m.expires }
        : {}),
    };
  });
  const debtors = partiesOf(of("2", "3"));
  const secured = partiesOf(of("4", "5"));
  const collateral = collateralOf(
    lines,
    records.flatMap((r) => (r.fields.record === undefined ? [] : [r.fields.record])),
  );
  return [
    {
      entry: {
        initial_financing_number: filing,
        initial_financing_date: dateOf(own),
        jurisdiction_state: texas.state,
        filing_kind: kind,
        ...(m.expires !== undefined ? { estimated_lien_lapse_date: m.expires } : {}),
        filing_office: texas.office,
        ...(collateral !== undefined ? { collateral } : {}),
        involved_parties: { debtor_parties: debtors.parties, secured_parties: secured.parties },
        amendments,
      },
      rows: [master, ...rows.filter((r) => r !== master)],
      from: { filing: master, debtors: debtors.rows, secured: secured.rows, amendments: amendmentRows },
      kinds,
      notes,
    },
  ];
}

/** The kind a filing type gives: blank is a financing statement; an unknown letter is read as a lien, noted. */
function filingKind(type: string | undefined, unrecognised: Unrecognised, notes: FeedWarning[]): FilingKind {
  if (type === undefined) return "standard";
  return lookup(FILING_TYPES, "filing type", type, unrecognised, (code) => {
    const read = kindOfWords(code);
    notes.push({
      path: ["filing_kind"],
      message: `${JSON.stringify(code)} is not a filing type known here: read as ${read}`,
    });
    return read;
  });
}

const party = (roles: string): PartyColumnNames => ({
  name: `name (${roles})`,
  type: "record code",
  street1: "street",
  street2: "street",
  city: "city",
  state: "state",
  zip_code: "ZIP code",
  country: "country",
});

export const texas: BulkSource = {
  id: "tx",
  state: "TX",
  office: "Texas Secretary of State",
  portal: "https://www.sos.state.tx.us/ucc/",
  tables: [table],
  replaces: true,
  columns: {
    number: "initial filing number",
    date: "filing date (code 6, type MR)",
    lapse: "expiration date (code 1)",
    kind: "filing type (code 1)",
    collateral: "collateral text (code 7)",
    amendment: {
      number: "filing number (code 6)",
      date: "filing date (code 6)",
      description: "amendment type (code 6)",
      lapse: "expiration date (code 1)",
    },
    debtor: party("codes 2, 3"),
    secured: party("codes 4, 5"),
  },
  assemble,
  bulk: {
    plan: (files) => files.map((file) => ({ file, table })),
    rows: (_input, text) => txRecords(text),
    dates: ["filed", "entered"],
    filingsOf: (_input, raw) => txFilingsOf(raw),
  },
};
