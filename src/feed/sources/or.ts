/**
 * Oregon's register: data.oregon.gov `snfi-f79b`, "UCC List of Filings
 * Entered Last Month" (docs/sources/or.md). The previous month only, one row
 * per party of each filing record; an amendment is numbered
 * `<original>-<sequence>` and may come months after its filing, in a later
 * month's file, so history is each month's file kept. The rows carry no id:
 * a row's identity is its facts but its lapse date.
 */
import type { AmendmentKind, FilingKind } from "../../domain/kinds.ts";
import type { FeedWarning } from "../schema.ts";
import {
  addressOf,
  distinctParties,
  isKnown,
  kindOfWords,
  type LienParty,
  lookup,
  rowHash,
  UNDATED,
  type Unrecognised,
} from "./codes.ts";
import type { SodaRow } from "./soda.ts";
import type { Assembled, Source, StagedRow } from "./source.ts";

/** `lien_type` as filing kinds: the four the README of shared/sources names. */
const LIEN_TYPES: Record<string, FilingKind> = {
  UCC: "standard",
  IRS: "federal_tax_lien",
  // The release of a federal tax lien: on an amendment, a termination.
  "IRS-X": "federal_tax_lien",
  // Effective financing statements for farm products (Food Security Act).
  EFS: "standard",
};

const FILE_TYPES: Record<string, "initial" | "amendment"> = { INITIAL: "initial", AMENDMENT: "amendment" };

const ROLES: Record<string, "debtor" | "secured"> = { DB: "debtor", SP: "secured" };

const ENTITY_TYPES: Record<string, LienParty["type"]> = { ORG: "Organization" };

/** `1866-23`: amendment 23 of filing 1866. */
const AMENDMENT_NUMBER = /^(.+)-(\d+)$/;

/** The filing a row belongs to: its original's number, or what its own number says. */
function filingOf(row: SodaRow): string | null {
  if (row.original_file_number) return row.original_file_number;
  const own = row.file_number;
  if (!own) return null;
  if (row.file_type?.toUpperCase() === "INITIAL") return own;
  return AMENDMENT_NUMBER.exec(own)?.[1] ?? (row.file_type === undefined ? own : null);
}

function partyOf(row: SodaRow, unrecognised: Unrecognised): LienParty | null {
  const name = row.entity;
  if (!name) return null;
  const entity = row.entity_type;
  const type =
    entity === undefined
      ? "Organization"
      : lookup(ENTITY_TYPES, "entity_type", entity, unrecognised, (code) =>
          /^(ind|per)/i.test(code) ? "Individual" : "Organization",
        );
  return {
    name,
    type,
    address: addressOf(row, {
      street1: "mail_addr_1",
      street2: "mail_addr_2",
      city: "city_descr",
      state: "st_cd_txt",
      zip_code: "zip_code_txt",
      country: "cntry_cd_txt",
    }),
  };
}

/** The distinct debtors and secured parties of `rows`, each with its row; a row of another party type is noted and left out. */
function partiesOf(rows: StagedRow[], unrecognised: Unrecognised, notes: FeedWarning[]) {
  const out = {
    debtor: [] as (LienParty & { row: StagedRow })[],
    secured: [] as (LienParty & { row: StagedRow })[],
  };
  for (const row of rows) {
    const code = row.fields.party_type;
    const role =
      code === undefined
        ? undefined
        : lookup<"debtor" | "secured" | undefined>(ROLES, "party_type", code, unrecognised, () => undefined);
    const party = partyOf(row.fields, unrecognised);
    if (!party) continue;
    if (!role) {
      notes.push({
        path: ["involved_parties"],
        message: `line ${row.line}: party_type ${code === undefined ? "missing" : JSON.stringify(code)} is neither DB (debtor) nor SP (secured party): ${JSON.stringify(party.name)} left out`,
      });
      continue;
    }
    out[role].push({ ...party, row });
  }
  const split = (list: (LienParty & { row: StagedRow })[]) => {
    const kept = distinctParties(list);
    return { parties: kept.map(({ row: _, ...p }) => p), rows: kept.map((p) => p.row) };
  };
  return { debtors: split(out.debtor), secured: split(out.secured) };
}

const latest = (dates: (string | undefined)[]) =>
  dates
    .filter((d): d is string => !!d)
    .reduce<string | undefined>((a, b) => (a === undefined || b > a ? b : a), undefined);

function assemble(filing: string, staged: StagedRow[], unrecognised: Unrecognised): Assembled[] {
  const numberOf = (row: StagedRow) => row.fields.file_number ?? filing;
  // A row without a date goes after those with one: a record's date and kind are read from its first row.
  const rows = [...staged].sort(
    (a, b) =>
      (a.fields.filing_date ?? UNDATED).localeCompare(b.fields.filing_date ?? UNDATED) ||
      numberOf(a).localeCompare(numberOf(b)) ||
      (a.fields.party_type ?? "").localeCompare(b.fields.party_type ?? "") ||
      (a.fields.entity ?? "").localeCompare(b.fields.entity ?? "") ||
      a.rowId.localeCompare(b.rowId),
  );
  const records = new Map<string, StagedRow[]>();
  for (const row of rows) records.set(numberOf(row), [...(records.get(numberOf(row)) ?? []), row]);
  const own = records.get(filing);
  const lapse = latest((own ?? []).map((r) => r.fields.lapse_date));
  const kinds = new Map<string, AmendmentKind>();
  const notes: FeedWarning[] = [];
  const amendments = [...records].flatMap(([number, recordRows]) => {
    const [head] = recordRows;
    if (number === filing || !head) return [];
    const f = head.fields;
    if (f.file_type !== undefined && !isKnown(FILE_TYPES, f.file_type)) unrecognised.note("file_type", f.file_type);
    if (f.lien_type !== undefined && !isKnown(LIEN_TYPES, f.lien_type)) unrecognised.note("lien_type", f.lien_type);
    if (f.lien_type?.toUpperCase() === "IRS-X") kinds.set(number, "termination");
    const recordLapse = latest(recordRows.map((r) => r.fields.lapse_date));
    const parties = partiesOf(recordRows, unrecognised, notes);
    return [
      {
        head,
        rows: recordRows,
        amendment: {
          amendment_financing_number: number,
          amendment_financing_date: f.filing_date,
          amendment_financing_type_description: [f.file_type, f.lien_type].filter(Boolean).join(" "),
          ...(recordLapse !== undefined && recordLapse !== lapse ? { amendment_lapse_date: recordLapse } : {}),
        },
        ...parties,
      },
    ];
  });
  const [head] = own ?? [];
  if (!own || !head) {
    return amendments.map((a) => ({
      entry: {
        initial_financing_number: filing,
        jurisdiction_state: "OR",
        ...a.amendment,
        involved_parties: { debtor_parties: a.debtors.parties, secured_parties: a.secured.parties },
      },
      rows: a.rows,
      from: { filing: a.head, debtors: a.debtors.rows, secured: a.secured.rows, amendments: [] },
      kinds,
      notes: [],
    }));
  }
  const type = head.fields.lien_type;
  const kind =
    type === undefined
      ? "standard"
      : lookup(LIEN_TYPES, "lien_type", type, unrecognised, (code) => {
          const read = kindOfWords(code);
          notes.push({
            path: ["filing_kind"],
            message: `${JSON.stringify(code)} is not a lien type known here: read as ${read}`,
          });
          return read;
        });
  const fileType = head.fields.file_type;
  if (fileType !== undefined && !isKnown(FILE_TYPES, fileType)) unrecognised.note("file_type", fileType);
  // Every party of the filing, its own record's first: one an amendment adds is searchable too.
  const parties = partiesOf([...own, ...amendments.flatMap((a) => a.rows)], unrecognised, notes);
  return [
    {
      entry: {
        initial_financing_number: filing,
        initial_financing_date: head.fields.filing_date,
        jurisdiction_state: "OR",
        filing_kind: kind,
        ...(lapse !== undefined ? { estimated_lien_lapse_date: lapse } : {}),
        filing_office: oregon.office,
        involved_parties: { debtor_parties: parties.debtors.parties, secured_parties: parties.secured.parties },
        amendments: amendments.map((a) => a.amendment),
      },
      rows,
      from: {
        filing: head,
        debtors: parties.debtors.rows,
        secured: parties.secured.rows,
        amendments: amendments.map((a) => a.head),
      },
      kinds,
      notes,
    },
  ];
}

const PARTY_COLUMNS = {
  name: "entity",
  type: "entity_type",
  street1: "mail_addr_1",
  street2: "mail_addr_2",
  city: "city_descr",
  state: "st_cd_txt",
  zip_code: "zip_code_txt",
  country: "cntry_cd_txt",
};

export const oregon: Source = {
  id: "or",
  state: "OR",
  office: "Oregon Secretary of State",
  portal: "https://data.oregon.gov",
  tables: [
    {
      tab: "or",
      dataset: "snfi-f79b",
      title: "UCC filings entered last month",
      marks: ["file_number", "original_file_number", "file_type", "lien_type", "party_type", "entity"],
      dates: ["filing_date", "lapse_date"],
      flags: [],
      dateColumn: "filing_date",
      key(row) {
        if (!row.file_number && !row.original_file_number) {
          return { error: "file_number and original_file_number: missing: the row names no filing" };
        }
        if (!row.file_number && row.file_type?.toUpperCase() !== "INITIAL") {
          return { error: "file_number: missing: the amendment's own number is unknown" };
        }
        const filing = filingOf(row);
        if (!filing) return { error: "original_file_number: missing: the filing this amendment is of is unknown" };
        return { rowId: rowHash(row, ["lapse_date"]), filing, part: null };
      },
    },
  ],
  columns: {
    number: "original_file_number",
    date: "filing_date",
    lapse: "lapse_date",
    kind: "lien_type",
    amendment: { number: "file_number", date: "filing_date", description: "file_type", lapse: "lapse_date" },
    debtor: PARTY_COLUMNS,
    secured: PARTY_COLUMNS,
  },
  assemble,
};
