/**
 * Florida's federal lien registrations (docs/sources/fl-flr.md; layouts in
 * flLayout.ts): notices of federal tax liens the Department of State
 * registers, posted as a quarterly set of files and one set each work day.
 * A lien is its `flrf` record (status, dates), its debtors (`flrd`) and
 * secured parties (`flrs`, nearly always the IRS), each keyed by the
 * document number, and, when the file can be read, its events (`flre`). A
 * row is known by its ids (the document number, a party's sequence), so a
 * daily set replaces what it names and adds what is new.
 */
import { AMENDMENT_STRENGTH, type AmendmentKind } from "../../domain/kinds.ts";
import type { FeedWarning } from "../schema.ts";
import type { BulkFile, BulkInput, BulkSource } from "./bulk.ts";
import {
  compareIds,
  distinctParties,
  fitDescription,
  type LienParty,
  lookup,
  rowHash,
  type Unrecognised,
} from "./codes.ts";
import { eventsUnread, FL_LAYOUTS, type FlKind, flFilingsOf, flName, flRecords, setDay } from "./flLayout.ts";
import type { SodaRow } from "./soda.ts";
import type { Assembled, PartyColumnNames, SourceTable, StagedRow } from "./source.ts";

const STATUSES: Record<string, "active" | "lapsed" | "terminated"> = { A: "active", L: "lapsed", T: "terminated" };

/** `flrf` filing types: a federal lien registration, or a lien. Both are notices of federal tax liens here. */
const FILING_TYPES: Record<string, true> = { F: true, U: true };

const NAME_FORMATS: Record<string, LienParty["type"]> = { C: "Organization", P: "Individual" };

/** Event actions (flre) by the kind they give an event; the strongest of an event's actions is its kind. */
const ACTIONS: Record<string, AmendmentKind> = {
  T: "termination",
  R: "termination",
  COR: "termination",
  DM: "termination",
  C: "continuation",
  RNC: "continuation",
  RNL: "continuation",
  ADD: "party_change",
  CHA: "party_change",
  CN: "party_change",
  REM: "party_change",
  COL: "collateral_change",
  A: "other",
  ADS: "other",
  AE: "other",
  AGI: "other",
  BAN: "other",
  COD: "other",
  CON: "other",
  COS: "other",
  PR: "other",
  SUB: "other",
  TU: "other",
  TYP: "other",
};

/** Each file kind's table: its rows' identity and filing. */
function tableOf(kind: FlKind): SourceTable {
  const { title } = FL_LAYOUTS[kind];
  return {
    tab: `fl_${kind}`,
    dataset: `${kind.toUpperCase()}.TXT`,
    title,
    marks: [],
    dates: [],
    flags: [],
    key(row) {
      const document = row.document;
      if (!document) {
        const which = kind === "flre" ? "original document number" : "document number";
        return { error: `${which}: blank: the lien it is of is unknown` };
      }
      if (kind === "flrf") return { rowId: document, filing: document, part: null };
      if (kind === "flre") {
        if (!row.event) return { error: "event document number: blank: the event cannot be told from others" };
        return {
          rowId: `${row.event}|${row.action_seq ?? rowHash(row, [])}|${document}`,
          filing: document,
          part: null,
        };
      }
      return { rowId: `${document}|${row.seq ?? rowHash(row, [])}`, filing: document, part: null };
    },
  };
}

const TABLES: Record<FlKind, SourceTable> = {
  flrf: tableOf("flrf"),
  flrd: tableOf("flrd"),
  flrs: tableOf("flrs"),
  flre: tableOf("flre"),
};
const KIND_OF_TAB = new Map(Object.entries(TABLES).map(([kind, t]) => [t.tab, kind as FlKind]));
const ORDER: FlKind[] = ["flrf", "flrd", "flrs", "flre"];

/** The name a set's file of `kind` has, for messages: `20210106flrf.txt`, or the quarterly `flrf.zip (FLRF.TXT)`. */
const expectedName = (set: string, kind: FlKind) =>
  set === "" ? `${kind}.zip (or ${kind.toUpperCase()}.TXT)` : `${set}${kind}.txt`;

/**
 * The files in the order they are read: the quarterly set first, then each
 * day's, each set's filings before its parties and events. Refused, before
 * anything is read: a name that is none of the set's, a day that is not
 * one, a kind given twice in a set, and a set without its `flrf` file.
 */
function plan(files: BulkFile[]): BulkInput[] | { refused: string } {
  const sets = new Map<string, Map<FlKind, BulkFile>>();
  for (const file of files) {
    const named = flName(file.name);
    if (!named) {
      return {
        refused: `${file.name}: not a file of Florida's federal lien registrations (flrf, flrd, flrs or flre, .txt or .zip; a day's named yyyymmddflrf.txt)`,
      };
    }
    if (named.set !== "" && setDay(named.set) === null) return { refused: `${file.name}: ${named.set} is not a day` };
    const set = sets.get(named.set) ?? new Map<FlKind, BulkFile>();
    sets.set(named.set, set);
    const twice = set.get(named.kind);
    if (twice) return { refused: `${twice.name} and ${file.name}: the same file of one set, given twice` };
    set.set(named.kind, file);
  }
  const inputs: BulkInput[] = [];
  for (const [name, set] of [...sets].sort(([a], [b]) => a.localeCompare(b))) {
    if (!set.has("flrf")) {
      const label = name === "" ? "the quarterly set" : `the set of ${name}`;
      return {
        refused: `${label} (${[...set.values()].map((f) => f.name).join(", ")}) has no ${expectedName(name, "flrf")}: its liens' records; nothing was loaded`,
      };
    }
    const day = name === "" ? undefined : (setDay(name) ?? undefined);
    for (const kind of ORDER) {
      const file = set.get(kind);
      if (file) inputs.push({ file, table: TABLES[kind], ...(day !== undefined ? { day } : {}) });
    }
  }
  return inputs;
}

const kindOf = (input: BulkInput): FlKind => KIND_OF_TAB.get(input.table.tab) ?? "flrf";

/** A nine-digit ZIP as ZIP+4. */
const zipOf = (zip: string) => (/^\d{9}$/.test(zip) ? `${zip.slice(0, 5)}-${zip.slice(5)}` : zip);

/** A party row as a party: the name as the office writes it (C an organization, P a person). */
function partyOf(row: SodaRow, unrecognised: Unrecognised): LienParty | null {
  if (!row.name) return null;
  const type =
    row.format === undefined
      ? "Organization"
      : lookup<LienParty["type"]>(NAME_FORMATS, "name format", row.format, unrecognised, () => "Organization");
  const address: LienParty["address"] = {
    ...(row.street1 !== undefined ? { street1: row.street1 } : {}),
    ...(row.street2 !== undefined ? { street2: row.street2 } : {}),
    ...(row.city !== undefined ? { city: row.city } : {}),
    ...(row.state !== undefined ? { state: row.state } : {}),
    ...(row.zip !== undefined ? { zip_code: zipOf(row.zip) } : {}),
    ...(row.country !== undefined ? { country: row.country } : {}),
  };
  return { name: row.name, type, address };
}

function partiesOf(rows: StagedRow[], unrecognised: Unrecognised) {
  const sorted = [...rows].sort(
    (a, b) => compareIds(a.fields.seq ?? "", b.fields.seq ?? "") || a.rowId.localeCompare(b.rowId),
  );
  const pairs = sorted.flatMap((row) => {
    const party = partyOf(row.fields, unrecognised);
    return party ? [{ ...party, row }] : [];
  });
  const kept = distinctParties(pairs);
  return { parties: kept.map(({ row: _, ...p }) => p), rows: kept.map((p) => p.row) };
}

/**
 * The events of a lien as amendments, one an event; its kind the strongest
 * of its actions' but a termination: the lien's status alone says whether it
 * stands, and its termination is the status's (assemble), so a release
 * event is listed for its words and `releases` says it was one.
 */
function eventsOf(rows: StagedRow[], unrecognised: Unrecognised) {
  const events = new Map<string, StagedRow[]>();
  for (const row of rows) {
    const event = row.fields.event ?? row.rowId;
    events.set(event, [...(events.get(event) ?? []), row]);
  }
  return [...events]
    .map(([number, actions]) => {
      actions.sort((a, b) => compareIds(a.fields.action_seq ?? "", b.fields.action_seq ?? ""));
      const [head] = actions;
      const kinds = actions.map((a) => {
        const code = a.fields.action ?? "";
        return lookup<AmendmentKind>(ACTIONS, "action code", code || "(blank)", unrecognised, () => "other");
      });
      // A termination is the status's (assemble): an event's kind is its strongest other action's.
      const kind = AMENDMENT_STRENGTH.find((k) => k !== "termination" && kinds.includes(k)) ?? "other";
      const words = [...new Set(actions.map((a) => a.fields.description ?? a.fields.action ?? ""))].filter(Boolean);
      const text = words.join("; ") || "Event";
      return {
        head,
        number,
        kind,
        releases: kinds.includes("termination"),
        date: head?.fields.date,
        description: fitDescription(text),
      };
    })
    .sort((a, b) => (a.date ?? "").localeCompare(b.date ?? "") || compareIds(a.number, b.number));
}

const TERMINATED = "Status T: terminated";

function assemble(filing: string, staged: StagedRow[], unrecognised: Unrecognised): Assembled[] {
  const rows = [...staged].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  const of = (kind: FlKind) => rows.filter((r) => r.tab === TABLES[kind].tab);
  const [own] = of("flrf");
  const [first] = rows;
  if (!first) return [];
  if (!own) {
    return [
      {
        entry: {},
        rows,
        from: { filing: first, debtors: [], secured: [], amendments: [] },
        notes: [],
        reject: `lien ${filing}: no filing record (flrf) of it has been read: its ${rows.length} rows are kept, and loaded when its flrf record is`,
      },
    ];
  }
  const f = own.fields;
  const notes: FeedWarning[] = [];
  if (f.type !== undefined) lookup(FILING_TYPES, "filing type", f.type, unrecognised, () => true);
  const status =
    f.status === undefined
      ? undefined
      : lookup<string | undefined>(STATUSES, "status", f.status, unrecognised, () => undefined);
  let lapse = f.expires;
  if (status === "lapsed" && lapse === undefined) {
    lapse = f.cancelled;
    notes.push({
      path: ["estimated_lien_lapse_date"],
      message:
        lapse === undefined
          ? "the office marks it lapsed (L) but gives no expiration or cancellation date: its lapse date is estimated"
          : "the office marks it lapsed (L) without an expiration date: its cancellation date taken as its lapse date",
    });
  }
  const terminated = status === "terminated";
  const events = eventsOf(of("flre"), unrecognised);
  // An undated event is left out, as the schema leaves out any undated amendment but a termination, which
  // an event never is here: the status alone says whether the lien stands.
  const dated = events.filter((e) => {
    if (e.date !== undefined) return true;
    notes.push({ path: ["amendments"], message: `event ${e.number} has no date: left out` });
    return false;
  });
  const lastContinuation = dated.filter((e) => e.kind === "continuation").at(-1);
  const kinds = new Map<string, AmendmentKind>(dated.map((e) => [e.number, e.kind]));
  const amendments: Record<string, unknown>[] = dated.map((e) => ({
    amendment_financing_number: e.number,
    amendment_financing_date: e.date,
    amendment_financing_type_description: e.description,
    // The expiration date is the latest refiling's: counted once, not again from a lien's term.
    ...(e === lastContinuation && f.expires !== undefined ? { amendment_lapse_date: f.expires } : {}),
  }));
  const amendmentRows = dated.flatMap((e) => (e.head ? [e.head] : []));
  // One termination however the release is told, by the status first and its event a day later or
  // never: numbered for the lien, so a release event arriving later is not a second termination.
  if (terminated) {
    const release = dated.find((e) => e.releases)?.date;
    const date = f.cancelled ?? release ?? f.filed;
    if (f.cancelled === undefined) {
      notes.push({
        path: ["amendments"],
        message: `the office marks it terminated (T) without a cancellation date: its termination dated its ${release === undefined ? "filing date" : "release event's date"}`,
      });
    }
    const number = `${filing}-T`;
    kinds.set(number, "termination");
    amendments.push({
      amendment_financing_number: number,
      amendment_financing_date: date,
      amendment_financing_type_description: TERMINATED,
    });
    amendmentRows.push(own);
  }
  const debtors = partiesOf(of("flrd"), unrecognised);
  const secured = partiesOf(of("flrs"), unrecognised);
  return [
    {
      entry: {
        initial_financing_number: filing,
        initial_financing_date: f.filed,
        jurisdiction_state: florida.state,
        filing_kind: "federal_tax_lien",
        ...(lapse !== undefined ? { estimated_lien_lapse_date: lapse } : {}),
        filing_office: florida.office,
        involved_parties: { debtor_parties: debtors.parties, secured_parties: secured.parties },
        amendments,
      },
      rows: [own, ...rows.filter((r) => r !== own)],
      from: { filing: own, debtors: debtors.rows, secured: secured.rows, amendments: amendmentRows },
      kinds,
      notes,
    },
  ];
}

const party = (file: string): PartyColumnNames => ({
  name: `name (${file})`,
  type: `name format (${file})`,
  street1: "address line 1",
  street2: "address line 2",
  city: "city",
  state: "state",
  zip_code: "ZIP code",
  country: "country",
});

export const florida: BulkSource = {
  id: "fl-flr",
  state: "FL",
  office: "Florida Department of State",
  portal: "sftp://sftp.floridados.gov",
  tables: ORDER.map((kind) => TABLES[kind]),
  columns: {
    number: "document number (flrf)",
    date: "filing date (flrf)",
    lapse: "expiration date (flrf)",
    kind: "filing type (flrf)",
    amendment: {
      number: "event document number (flre)",
      date: "event date (flre), or cancellation date (flrf)",
      description: "action description (flre)",
      lapse: "expiration date (flrf)",
    },
    debtor: party("flrd"),
    secured: party("flrs"),
  },
  assemble,
  bulk: {
    accepts: (name) => flName(name) !== null,
    plan,
    rows: (input, text) => flRecords(kindOf(input), text),
    check: async (input, open) => (kindOf(input) === "flre" ? eventsUnread(await open()) : null),
    dates: ["filed", "cancelled", "date"],
    filingsOf: (input, raw) => flFilingsOf(kindOf(input), raw),
  },
};
