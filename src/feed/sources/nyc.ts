/**
 * New York City's personal-property register: ACRIS on
 * data.cityofnewyork.us (docs/sources/nyc-acris.md), the City Register's
 * UCC filings and federal liens for Manhattan, the Bronx, Brooklyn and
 * Queens, in three tables joined on `document_id`: Master (`sv7x-dduq`, a
 * row per document: a filing, or an amendment or release filed against
 * one), Parties (`nbbg-wtuz`, a row per party of a document) and
 * References (`6y3e-jcrc`, a row per document an amendment names). A
 * filing's own Master row gives its number (its CRFN); the rest learn
 * their filing by links (nycLinks.ts): an amendment's Master row and a
 * reference carry in their part the number or document they are found by.
 */
import type { AmendmentKind, FilingKind } from "../../domain/kinds.ts";
import type { FeedWarning } from "../schema.ts";
import { addressOf, compareIds, distinctParties, type LienParty, rowHash, type Unrecognised } from "./codes.ts";
import { MASTER, NYC, nycLinks, PARTIES, REFERENCE_SEPARATOR, REFERENCES } from "./nycLinks.ts";
import { isPersonName } from "./nycNames.ts";
import { AMENDMENT_TYPES, COLLATERAL_CODES, FILING_TYPES, isFilingType, PARTY_ROLES, typeCode } from "./nycTypes.ts";
import type { SodaRow } from "./soda.ts";
import type { Assembled, PartyColumnNames, Source, StagedRow } from "./source.ts";

const OFFICE = "New York City Register";

/**
 * A document's number as the register shows it: its CRFN (City Register
 * file number); a document recorded before ACRIS has none, and is known by
 * its file number; the document id is the last resort.
 */
const numberOf = (row: SodaRow) => row.crfn ?? row.file_nbr ?? row.document_id ?? "";

/** Master rows in the register's order: by recording, then number. */
const byRecording = (a: StagedRow, b: StagedRow) =>
  (a.fields.recorded_datetime ?? "").localeCompare(b.fields.recorded_datetime ?? "") ||
  compareIds(numberOf(a.fields), numberOf(b.fields)) ||
  a.rowId.localeCompare(b.rowId);

const ADDRESS = {
  street1: "address_1",
  street2: "address_2",
  city: "city",
  state: "state",
  zip_code: "zip",
  country: "country",
};

/** A party with the row it came from, to name a problem by the office's line. */
type Found = LienParty & { row: StagedRow };

/** Parties without repeats, as the lien shape lists them and the rows they came from. */
function split(found: Found[]) {
  const kept = distinctParties(found);
  return { parties: kept.map(({ row: _, ...p }) => p), rows: kept.map((p) => p.row) };
}

/** A document's debtors (party 1) and secured parties (2, and 3: an assignee), each with its row; another party type is left out, said so. */
function partiesOf(rows: StagedRow[], unrecognised: Unrecognised, notes: FeedWarning[]) {
  const found = { debtors: [] as Found[], secured: [] as Found[] };
  const sorted = [...rows].sort(
    (a, b) =>
      (a.fields.party_type ?? "").localeCompare(b.fields.party_type ?? "") ||
      (a.fields.name ?? "").localeCompare(b.fields.name ?? "") ||
      a.rowId.localeCompare(b.rowId),
  );
  for (const row of sorted) {
    const { name, party_type: code } = row.fields;
    if (!name) continue;
    const role = code === undefined ? undefined : PARTY_ROLES[code.trim()];
    const list = role === "debtor" ? found.debtors : role === "secured" ? found.secured : null;
    if (!list) {
      if (code !== undefined) unrecognised.note("party_type", code);
      notes.push({
        path: ["involved_parties"],
        message: `line ${row.line}: party_type ${code === undefined ? "missing" : JSON.stringify(code)} is not 1 (debtor), 2 (secured party) or 3 (assignee): ${JSON.stringify(name)} left out`,
      });
      continue;
    }
    const type = isPersonName(name) ? "Individual" : "Organization";
    list.push({ name, type, address: addressOf(row.fields, ADDRESS), row });
  }
  return found;
}

/** The filing's kind and collateral text: its document type's, then its `ucc_collateral` code's. */
function kindOf(row: SodaRow, unrecognised: Unrecognised, notes: FeedWarning[]) {
  const type = FILING_TYPES[typeCode(row.doc_type ?? "")];
  let kind: FilingKind = type?.kind ?? "standard";
  let collateral = type?.collateral;
  const code = row.ucc_collateral;
  if (code !== undefined) {
    const meaning = COLLATERAL_CODES[code.trim().toUpperCase()];
    if (!meaning) {
      unrecognised.note("ucc_collateral", code);
      notes.push({
        path: ["ucc_collateral"],
        message: `${JSON.stringify(code)} is not a collateral code known here: left out`,
      });
    } else if ("kind" in meaning) {
      // A federal lien keeps its kind whatever the code says.
      if (kind === "standard") kind = meaning.kind;
    } else if ("collateral" in meaning) collateral = meaning.collateral;
  }
  return { kind, collateral };
}

/** An amendment's description: the office's words for its type (the code itself when it is not known here). */
function amendmentType(row: SodaRow, unrecognised: Unrecognised) {
  const raw = row.doc_type ?? "";
  const code = typeCode(raw);
  const known = AMENDMENT_TYPES[code] ?? FILING_TYPES[code];
  if (!known) unrecognised.note("doc_type", raw);
  return { description: known?.description ?? raw, kind: AMENDMENT_TYPES[code]?.kind };
}

function assemble(filing: string, staged: StagedRow[], unrecognised: Unrecognised): Assembled[] {
  const masters = staged.filter((r) => r.tab === MASTER).sort(byRecording);
  const byDocument = new Map<string, StagedRow[]>();
  for (const row of staged) {
    const document =
      row.tab === REFERENCES ? row.rowId.slice(0, row.rowId.indexOf(REFERENCE_SEPARATOR)) : row.fields.document_id;
    if (row.tab === MASTER || document === undefined) continue;
    byDocument.set(document, [...(byDocument.get(document) ?? []), row]);
  }
  const rowsOf = (master: StagedRow) => byDocument.get(master.rowId) ?? [];
  const own = masters.find((m) => isFilingType(m.fields.doc_type ?? "") && numberOf(m.fields) === filing);
  const kinds = new Map<string, AmendmentKind>();
  const amendments = masters
    .filter((m) => m !== own)
    .map((master) => {
      const f = master.fields;
      const notes: FeedWarning[] = [];
      const number = numberOf(f);
      const { description, kind } = amendmentType(f, unrecognised);
      if (kind) kinds.set(number, kind);
      if (isFilingType(f.doc_type ?? "")) {
        // Two filings under one number (file numbers from before ACRIS may repeat): the later is listed, not lost.
        notes.push({
          path: ["initial_financing_number"],
          message: `document ${master.rowId} (${f.doc_type}) is numbered ${number} as well: listed as an amendment`,
        });
      }
      const others = rowsOf(master);
      const parties = partiesOf(
        others.filter((r) => r.tab === PARTIES),
        unrecognised,
        notes,
      );
      return {
        master,
        rows: [master, ...others],
        amendment: {
          amendment_financing_number: number,
          amendment_financing_date: f.recorded_datetime,
          amendment_financing_type_description: description,
        },
        parties,
        notes,
      };
    });
  if (!own) {
    // Its filing is not in the register (yet): each amendment applies to the stored filing, or waits for it.
    return amendments.map((a) => {
      const debtors = split(a.parties.debtors);
      const secured = split(a.parties.secured);
      return {
        entry: {
          initial_financing_number: filing,
          jurisdiction_state: nyc.state,
          ...a.amendment,
          involved_parties: { debtor_parties: debtors.parties, secured_parties: secured.parties },
        },
        rows: a.rows,
        from: { filing: a.master, debtors: debtors.rows, secured: secured.rows, amendments: [] },
        kinds,
        notes: a.notes,
      };
    });
  }
  const f = own.fields;
  const notes = amendments.flatMap((a) => a.notes);
  if (!f.crfn && !f.file_nbr) {
    notes.push({ path: ["crfn"], message: `missing, as is file_nbr: the filing is numbered by its document_id` });
  }
  const { kind, collateral } = kindOf(f, unrecognised, notes);
  const mine = partiesOf(
    rowsOf(own).filter((r) => r.tab === PARTIES),
    unrecognised,
    notes,
  );
  // Every party of the filing, its own document's first: a debtor an amendment adds, or an assignee, is searchable too.
  const debtors = split([...mine.debtors, ...amendments.flatMap((a) => a.parties.debtors)]);
  const secured = split([...mine.secured, ...amendments.flatMap((a) => a.parties.secured)]);
  return [
    {
      entry: {
        initial_financing_number: filing,
        initial_financing_date: f.recorded_datetime,
        jurisdiction_state: nyc.state,
        filing_kind: kind,
        filing_office: OFFICE,
        ...(collateral !== undefined ? { collateral } : {}),
        involved_parties: { debtor_parties: debtors.parties, secured_parties: secured.parties },
        amendments: amendments.map((a) => a.amendment),
      },
      rows: [own, ...staged.filter((r) => r !== own)],
      from: { filing: own, debtors: debtors.rows, secured: secured.rows, amendments: amendments.map((a) => a.master) },
      kinds,
      notes,
    },
  ];
}

/** A whole export's header names (the portal's display names, as headerName reads them); *unverified*. */
const MASTER_EXPORT: Record<string, string> = {
  borough: "recorded_borough",
  doc_amount: "document_amt",
  recorded_filed: "recorded_datetime",
  collateral: "ucc_collateral",
  slid: "fedtax_serial_nbr",
  assessment_date: "fedtax_assessment_date",
  rptt: "rpttl_nbr",
  reel_year: "reel_yr",
  reel_page: "reel_pg",
  file_number: "file_nbr",
};

/** The extract's date on every row: the state's data_through, not staged (see SourceTable.volatile). */
const THROUGH = { throughColumn: "good_through_date", volatile: ["good_through_date"] };

const PARTY_COLUMNS: PartyColumnNames = {
  name: "name",
  type: "name",
  street1: "address_1",
  street2: "address_2",
  city: "city",
  state: "state",
  zip_code: "zip",
  country: "country",
};

export const nyc: Source = {
  id: NYC,
  state: "NY",
  office: OFFICE,
  portal: "https://data.cityofnewyork.us",
  // Master first, so a pull's references and parties find their documents staged.
  tables: [
    {
      tab: MASTER,
      dataset: "sv7x-dduq",
      title: "Master (documents)",
      marks: [
        "doc_type",
        "recorded_datetime",
        "recorded_borough",
        "ucc_collateral",
        "document_amt",
        "fedtax_serial_nbr",
        "fedtax_assessment_date",
        "rpttl_nbr",
        "modified_date",
        "reel_yr",
        "reel_nbr",
        "reel_pg",
      ],
      dates: ["recorded_datetime", "modified_date", "fedtax_assessment_date", "good_through_date"],
      flags: [],
      dateColumn: "recorded_datetime",
      ...THROUGH,
      exportHeaders: MASTER_EXPORT,
      key(row) {
        const document = row.document_id;
        if (!document) return { error: "document_id: missing: the row cannot be told from others" };
        const type = row.doc_type;
        if (!type) return { error: "doc_type: missing: whether the document is a filing or an amendment is unknown" };
        if (isFilingType(type)) return { rowId: document, filing: numberOf(row), part: null };
        // An amendment (or a type not known here): its references give its filing; its part, its
        // number, finds it for a later amendment naming it by that number (a continuation's continuation).
        return { rowId: document, filing: null, part: numberOf(row) };
      },
    },
    {
      tab: REFERENCES,
      dataset: "6y3e-jcrc",
      title: "References",
      marks: ["doc_id_ref", "crfn", "file_nbr"],
      dates: ["good_through_date"],
      flags: [],
      ...THROUGH,
      exportHeaders: { file_number: "file_nbr" },
      key(row) {
        const document = row.document_id;
        if (!document) return { error: "document_id: missing: the document making this reference is unknown" };
        const rowId = `${document}${REFERENCE_SEPARATOR}${rowHash(row, [])}`;
        // The document id first: it names the document exactly, whatever number its filing is known by
        // (filings are numbered by CRFN first, so a file number misses one that has both); then the file
        // number, then the CRFN. The part is what is named; the links give the filing (nycLinks.ts's
        // namesDocument reads this order).
        if (row.doc_id_ref) return { rowId, filing: null, part: row.doc_id_ref };
        if (row.file_nbr) return { rowId, filing: null, part: row.file_nbr };
        if (row.crfn) return { rowId, filing: null, part: row.crfn };
        return { error: "file_nbr, doc_id_ref and crfn: missing: the reference names no document" };
      },
    },
    {
      tab: PARTIES,
      dataset: "nbbg-wtuz",
      title: "Parties",
      marks: ["party_type", "name", "address_1", "address_2", "zip", "city", "country"],
      dates: ["good_through_date"],
      flags: [],
      ...THROUGH,
      key(row) {
        const document = row.document_id;
        if (!document) return { error: "document_id: missing: the document this is a party of is unknown" };
        return { rowId: rowHash(row, []), filing: null, part: document };
      },
    },
  ],
  columns: {
    number: "crfn",
    date: "recorded_datetime",
    lapse: "(none: the register gives no lapse date)",
    kind: "doc_type",
    collateral: "ucc_collateral",
    amendment: {
      number: "crfn",
      date: "recorded_datetime",
      description: "doc_type",
      lapse: "(none: the register gives no lapse date)",
    },
    debtor: PARTY_COLUMNS,
    secured: PARTY_COLUMNS,
  },
  links: nycLinks,
  assemble,
};
