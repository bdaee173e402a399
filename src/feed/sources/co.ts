/**
 * Colorado's register: four datasets of data.colorado.gov joined on
 * `fileid` (docs/sources/co.md). The transactions (`wffy-3uut`) are one row
 * per filing or amendment: an amendment's `masterdocumentid` is the
 * `transactionid` of its filing's "Initial Filing" row. Debtors
 * (`8upq-58vz`), secured parties (`ap62-sav4`) and collateral (`4am6-w6u4`)
 * are rows of their own, each naming the transaction it was filed with by
 * its `fileid`, so a party row learns its filing from its transaction,
 * whichever of the two is read first. Every row carries the office's id.
 */
import type { AmendmentKind, FilingKind } from "../../domain/kinds.ts";
import { amendmentKind, filingKindOf } from "../normalize.ts";
import type { FeedWarning } from "../schema.ts";
import {
  addressOf,
  amendmentLapse,
  compareIds,
  distinctParties,
  individualName,
  isKnown,
  kindOfWords,
  type LienParty,
  lookup,
  type Unrecognised,
} from "./codes.ts";
import type { SodaRow } from "./soda.ts";
import type { Assembled, PartyColumnNames, Source, SourceTable, StagedRow } from "./source.ts";

/** `filingtype` as filing kinds: the four the README of shared/sources names. */
const FILING_TYPES: Record<string, FilingKind> = {
  UCC: "standard",
  LIEN_IRS: "federal_tax_lien",
  LIEN_HOSP: "other_lien",
  // Effective financing statements of the central filing system for farm products (Food Security Act).
  EFS: "standard",
};

const TRANSACTION_TYPES: Record<string, "initial" | "amendment"> = {
  "INITIAL FILING": "initial",
  AMENDMENT: "amendment",
};

/** Document types known: the ordinary UCC-1's. Others are kept as amendments' descriptions and counted. */
const DOCUMENT_TYPES: Record<string, true> = { "UCC FINANCING STATEMENT": true };

const TRANSACTIONS = "co_transactions";
const DEBTORS = "co_debtors";
const SECURED = "co_secured";
const COLLATERAL = "co_collateral";

/** Whether a transaction row is a filing's own ("Initial Filing"), not an amendment of one. */
function isInitial(row: SodaRow): boolean {
  const type = row.transactiontype ? TRANSACTION_TYPES[row.transactiontype.toUpperCase()] : undefined;
  if (type) return type === "initial";
  return !row.masterdocumentid || row.masterdocumentid === row.transactionid;
}

/** A party or collateral table, its id column, and what the other columns are. */
function memberTable(tab: string, dataset: string, title: string, id: string, marks: string[]): SourceTable {
  return {
    tab,
    dataset,
    title,
    marks: [id, ...marks],
    dates: [],
    flags: tab === COLLATERAL ? ["farmproductflag", "farmproductallyears"] : [],
    key(row) {
      const rowId = row[id];
      if (!rowId) return { error: `${id}: missing: the row cannot be told from others` };
      if (!row.fileid) return { error: "fileid: missing: the transaction it was filed with is unknown" };
      return { rowId, filing: null, part: row.fileid };
    },
  };
}

const transactions: SourceTable = {
  tab: TRANSACTIONS,
  dataset: "wffy-3uut",
  title: "filing transactions",
  marks: ["transactionid", "masterdocumentid", "transactiontype", "documenttype", "filingtype", "terminationflag"],
  dates: ["filingdate", "lapsedate"],
  flags: ["continuation", "terminationflag", "manufacturedhometransactions"],
  dateColumn: "filingdate",
  joins: "transaction",
  key(row) {
    const id = row.transactionid;
    if (!id) return { error: "transactionid: missing: the row cannot be told from others" };
    if (isInitial(row)) return { rowId: id, filing: id, part: row.fileid ?? null };
    if (!row.masterdocumentid)
      return { error: "masterdocumentid: missing: the filing this amendment is of is unknown" };
    return { rowId: id, filing: row.masterdocumentid, part: row.fileid ?? null };
  },
};

const PARTY_ADDRESS = {
  street1: "address1",
  street2: "address2",
  city: "city",
  state: "state",
  zip_code: "zipcode",
  country: "country",
};

/** A debtor's or secured party's row as a party: an organization's name, or a person's parts as one name. */
function partyOf(row: SodaRow): LienParty | null {
  const address = addressOf(row, PARTY_ADDRESS);
  if (row.organizationname) return { name: row.organizationname, type: "Organization", address };
  const person = individualName({ last: row.lastname, first: row.firstname, middle: row.middlename });
  return person ? { name: person, type: "Individual", address } : null;
}

/** The distinct parties of `rows`, each with its row. */
function partiesOf(rows: StagedRow[]) {
  const pairs = rows.flatMap((row) => {
    const party = partyOf(row.fields);
    return party ? [{ ...party, row }] : [];
  });
  const kept = distinctParties(pairs);
  return { parties: kept.map(({ row: _, ...p }) => p), rows: kept.map((p) => p.row) };
}

/** Collateral rows as one text: each description and its continuation, in the office's order. */
function collateralOf(rows: StagedRow[]): string | undefined {
  const text = rows
    .flatMap((r) => [r.fields.collateraldescription, r.fields.additionalcollateraldescription])
    .filter((t): t is string => !!t)
    .join("\n");
  return text === "" ? undefined : text;
}

const byId = (column: string) => (a: StagedRow, b: StagedRow) =>
  compareIds(a.fields[column] ?? "", b.fields[column] ?? "") || a.rowId.localeCompare(b.rowId);

/** An amendment's kind from the office's flags, when they give one. */
function flaggedKind(row: SodaRow): AmendmentKind | undefined {
  if (row.terminationflag === "true") return "termination";
  if (row.continuation === "true") return "continuation";
  return undefined;
}

function assemble(filing: string, rows: StagedRow[], unrecognised: Unrecognised): Assembled[] {
  const txs = rows
    .filter((r) => r.tab === TRANSACTIONS)
    .sort(
      (a, b) => (a.fields.filingdate ?? "").localeCompare(b.fields.filingdate ?? "") || byId("transactionid")(a, b),
    );
  const own = txs.find((t) => t.fields.transactionid === filing);
  // Each transaction's parties and collateral, by its fileid; any whose transaction is gone go with the filing's own.
  const members = new Map<string, { debtors: StagedRow[]; secured: StagedRow[]; collateral: StagedRow[] }>();
  const parts = new Set(txs.map((t) => t.part).filter((p): p is string => p !== null));
  for (const row of rows) {
    if (row.tab === TRANSACTIONS) continue;
    const part = row.part !== null && parts.has(row.part) ? row.part : (own?.part ?? row.part ?? "");
    const group = members.get(part) ?? { debtors: [], secured: [], collateral: [] };
    members.set(part, group);
    if (row.tab === DEBTORS) group.debtors.push(row);
    else if (row.tab === SECURED) group.secured.push(row);
    else if (row.tab === COLLATERAL) group.collateral.push(row);
  }
  for (const group of members.values()) {
    group.debtors.sort(byId("debtorid"));
    group.secured.sort(byId("spid"));
    group.collateral.sort(byId("collateralid"));
  }
  const empty = { debtors: [], secured: [], collateral: [] };
  const membersOf = (tx: StagedRow) => (tx.part !== null ? members.get(tx.part) : undefined) ?? empty;
  const ownLapse = own?.fields.lapsedate;
  const kinds = new Map<string, AmendmentKind>();
  const amendments = txs
    .filter((tx) => tx !== own)
    .map((tx) => {
      const f = tx.fields;
      const type = f.documenttype ?? f.transactiontype;
      if (f.transactiontype !== undefined && !isKnown(TRANSACTION_TYPES, f.transactiontype)) {
        unrecognised.note("transactiontype", f.transactiontype);
      }
      if (f.documenttype !== undefined && !isKnown(DOCUMENT_TYPES, f.documenttype)) {
        unrecognised.note("documenttype", f.documenttype);
      }
      const number = f.transactionid ?? tx.rowId;
      const flagged = flaggedKind(f);
      if (flagged) kinds.set(number, flagged);
      const { debtors, secured, collateral } = membersOf(tx);
      const lapse = f.lapsedate;
      return {
        tx,
        amendment: {
          amendment_financing_number: number,
          amendment_financing_date: f.filingdate,
          amendment_financing_type_description: type,
          // A continuation flagged so (continuation=true) or named so keeps its date though it equals the filing's.
          ...amendmentLapse(lapse, ownLapse, flagged ?? amendmentKind(type ?? "")),
          ...(collateralOf(collateral) !== undefined ? { amendment_collateral: collateralOf(collateral) } : {}),
        },
        debtors: partiesOf(debtors),
        secured: partiesOf(secured),
      };
    });
  if (!own) {
    return amendments.map((a) => ({
      entry: {
        initial_financing_number: filing,
        jurisdiction_state: "CO",
        ...a.amendment,
        involved_parties: { debtor_parties: a.debtors.parties, secured_parties: a.secured.parties },
      },
      rows: [a.tx, ...membersRows(membersOf(a.tx))],
      from: { filing: a.tx, debtors: a.debtors.rows, secured: a.secured.rows, amendments: [] },
      kinds,
      notes: [],
    }));
  }
  const mine = membersOf(own);
  const notes: FeedWarning[] = [];
  const document = own.fields.documenttype;
  if (document !== undefined && !isKnown(DOCUMENT_TYPES, document)) unrecognised.note("documenttype", document);
  const kind = filingKind(own.fields, unrecognised, notes);
  // Every party of the filing, its own first: one an amendment adds is searchable too.
  const debtors = partiesOf([...mine.debtors, ...amendments.flatMap((a) => a.debtors.rows)]);
  const secured = partiesOf([...mine.secured, ...amendments.flatMap((a) => a.secured.rows)]);
  const collateral = collateralOf(mine.collateral);
  return [
    {
      entry: {
        initial_financing_number: filing,
        initial_financing_date: own.fields.filingdate,
        jurisdiction_state: "CO",
        filing_kind: kind,
        ...(ownLapse !== undefined ? { estimated_lien_lapse_date: ownLapse } : {}),
        filing_office: colorado.office,
        ...(collateral !== undefined ? { collateral } : {}),
        involved_parties: { debtor_parties: debtors.parties, secured_parties: secured.parties },
        amendments: amendments.map((a) => a.amendment),
      },
      rows: [own, ...rows.filter((r) => r !== own)],
      from: { filing: own, debtors: debtors.rows, secured: secured.rows, amendments: amendments.map((a) => a.tx) },
      kinds,
      notes,
    },
  ];
}

const membersRows = (m: { debtors: StagedRow[]; secured: StagedRow[]; collateral: StagedRow[] }) => [
  ...m.debtors,
  ...m.secured,
  ...m.collateral,
];

/**
 * A filing's kind: its `filingtype`; a UCC filing whose document type names
 * another kind (a transmitting utility) or that is a manufactured-home
 * transaction takes that kind.
 */
function filingKind(row: SodaRow, unrecognised: Unrecognised, notes: FeedWarning[]): FilingKind {
  const type = row.filingtype;
  const kind =
    type === undefined
      ? "standard"
      : lookup(FILING_TYPES, "filingtype", type, unrecognised, (code) => {
          const read = kindOfWords(code);
          notes.push({
            path: ["filing_kind"],
            message: `${JSON.stringify(code)} is not a filing type known here: read as ${read}`,
          });
          return read;
        });
  if (kind !== "standard") return kind;
  if (row.manufacturedhometransactions === "true") return "manufactured_home";
  const named = row.documenttype ? filingKindOf(row.documenttype) : null;
  return named && named !== "other_lien" ? named : kind;
}

const PARTY_COLUMNS: PartyColumnNames = {
  name: "organizationname or lastname",
  type: "organizationname or lastname",
  street1: "address1",
  street2: "address2",
  city: "city",
  state: "state",
  zip_code: "zipcode",
  country: "country",
};

export const colorado: Source = {
  id: "co",
  state: "CO",
  office: "Colorado Secretary of State",
  portal: "https://data.colorado.gov",
  tables: [
    transactions,
    memberTable(DEBTORS, "8upq-58vz", "debtors", "debtorid", [
      "debtordescription",
      "efsuniqueid",
      "organizationjurisdiction",
      "organizationtype",
      "recordstatuscode",
    ]),
    memberTable(SECURED, "ap62-sav4", "secured parties", "spid", ["assignor", "recordstatuscd"]),
    memberTable(COLLATERAL, "4am6-w6u4", "collateral", "collateralid", [
      "collateraldescription",
      "additionalcollateraldescription",
      "farmproductflag",
      "countyid",
    ]),
  ],
  columns: {
    number: "transactionid",
    date: "filingdate",
    lapse: "lapsedate",
    kind: "filingtype",
    collateral: "collateraldescription",
    amendment: {
      number: "transactionid",
      date: "filingdate",
      description: "documenttype",
      lapse: "lapsedate",
      collateral: "collateraldescription",
    },
    debtor: PARTY_COLUMNS,
    secured: PARTY_COLUMNS,
  },
  assemble,
};
