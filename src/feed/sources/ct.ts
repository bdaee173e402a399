/**
 * Connecticut's register: data.ct.gov `xfev-8smz`, "Uniform Commercial Code
 * (UCC) Lien Filings (4.0 Revised)" (docs/sources/ct.md). One row per
 * filing record and party pair: a debtor and a secured party on each row,
 * so a filing with two debtors has two rows, and every amendment, release
 * or other record filed against a lien is rows of its own
 * (`id_ucc_flng_nbr` its number, `id_lien_flng_nbr` the lien's; on the
 * lien's own record the two are equal). The rows carry no id: a row's
 * identity is its facts but the two the office changes in place
 * (`lien_status`, `dt_lapse`).
 */

import type { FilingKind } from "../../domain/kinds.ts";
import { amendmentKind } from "../normalize.ts";
import type { FeedWarning } from "../schema.ts";
import {
  addressOf,
  amendmentLapse,
  distinctParties,
  individualName,
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

/** Lien types (`tx_lien_descript`) as filing kinds; the README of shared/sources names these five. */
const LIEN_TYPES: Record<string, FilingKind> = {
  OFS: "standard",
  IRS: "federal_tax_lien",
  // Liens of the Connecticut Department of Labor: unpaid unemployment contributions, a state tax.
  LABOR: "state_tax_lien",
  MUNICIPAL: "other_lien",
  VESSEL: "vessel_lien",
};

/** Filing types (`cd_flng_type`) of a lien's own record, with the kind those that name one give. */
const ORIGINAL_TYPES: Record<string, FilingKind | null> = {
  "ORIG FIN STMT": null,
  "VESSEL LIEN": "vessel_lien",
  "JUDGMENT LIEN": "judgment_lien",
};

/** Filing types of records filed against a lien. */
const AMENDMENT_TYPES: Record<string, true> = { AMENDMENT: true, RELEASE: true };

const STATUSES: Record<string, "active" | "released"> = { ACTIVE: "active", RELEASED: "released" };

/** The fields the office changes in place, left out of a row's identity. */
const MUTABLE = ["lien_status", "dt_lapse"] as const;

/** A whole export's header names (the portal's display names, as headerName reads them). */
const EXPORT_HEADERS: Record<string, string> = {
  original_filing_no: "id_lien_flng_nbr",
  subsequent_filing_no: "id_ucc_flng_nbr",
  filing_type: "cd_flng_type",
  lien_type: "tx_lien_descript",
  lapse_date: "dt_lapse",
  filing_date: "dt_accept",
  record_volume: "cd_volume",
  start_page: "cd_start_page",
  no_pages: "qt_pages",
  ...Object.fromEntries(
    (["debtor", "secured_party"] as const).flatMap((who) => {
      const prefix = who === "debtor" ? "debtor" : "sec_party";
      return [
        [`${who}_last_name`, `${prefix}_nm_last`],
        [`${who}_name_suffix`, `${prefix}_nm_suff`],
        [`${who}_name_prefix`, `${prefix}_nm_pref`],
        [`${who}_first_name`, `${prefix}_nm_first`],
        [`${who}_middle_name`, `${prefix}_nm_mid`],
        [`${who}_business_name`, `${prefix}_nm_bus`],
        [`${who}_street_address_1`, `${prefix}_ad_str1`],
        [`${who}_street_address_2`, `${prefix}_ad_str2`],
        [`${who}_city`, `${prefix}_ad_city`],
        [`${who}_state`, `${prefix}_ad_state`],
        [`${who}_zip`, `${prefix}_ad_zip`],
      ];
    }),
  ),
};

/** A row's party names, to order rows by. */
const namesOf = (row: SodaRow) =>
  ["debtor_nm_bus", "debtor_nm_last", "debtor_nm_first", "debtor_nm_mid", "sec_party_nm_bus", "sec_party_nm_last"]
    .map((c) => row[c] ?? "")
    .join("\u0000");

/** The number of the record a row is of. */
const recordOf = (row: SodaRow, filing: string) => row.id_ucc_flng_nbr ?? filing;

/** The parties a row names in the columns starting `prefix`: a business, a person, or both (each is findable). */
function partiesOf(row: SodaRow, prefix: "debtor" | "sec_party"): LienParty[] {
  const address = addressOf(row, {
    street1: `${prefix}_ad_str1`,
    street2: `${prefix}_ad_str2`,
    city: `${prefix}_ad_city`,
    state: `${prefix}_ad_state`,
    zip_code: `${prefix}_ad_zip`,
  });
  const out: LienParty[] = [];
  const business = row[`${prefix}_nm_bus`];
  if (business) out.push({ name: business, type: "Organization", address });
  const person = individualName({
    last: row[`${prefix}_nm_last`],
    first: row[`${prefix}_nm_first`],
    middle: row[`${prefix}_nm_mid`],
    suffix: row[`${prefix}_nm_suff`],
  });
  if (person) out.push({ name: person, type: "Individual", address });
  return out;
}

/** The distinct parties of `rows` in one role, each with the row it came from. */
function rolesOf(rows: StagedRow[], prefix: "debtor" | "sec_party") {
  const pairs = rows.flatMap((row) => partiesOf(row.fields, prefix).map((party) => ({ ...party, row })));
  const kept = distinctParties(pairs);
  return { parties: kept.map(({ row: _, ...p }) => p), rows: kept.map((p) => p.row) };
}

/** The latest of some dates (YYYY-MM-DD text compares in order); undefined for none. */
const latest = (dates: (string | undefined)[]) =>
  dates
    .filter((d): d is string => !!d)
    .reduce<string | undefined>((a, b) => (a === undefined || b > a ? b : a), undefined);

/** What a record filed against the lien brings: the amendment's fields and its parties. */
function amendmentOf(number: string, rows: StagedRow[], filingLapse: string | undefined, unrecognised: Unrecognised) {
  const first = rows[0]?.fields ?? {};
  const type = first.cd_flng_type;
  if (type !== undefined && !isKnown(AMENDMENT_TYPES, type)) unrecognised.note("cd_flng_type", type);
  const lapse = latest(rows.map((r) => r.fields.dt_lapse));
  return {
    amendment: {
      amendment_financing_number: number,
      amendment_financing_date: first.dt_accept,
      amendment_financing_type_description: type,
      ...amendmentLapse(lapse, filingLapse, amendmentKind(type ?? "")),
    },
    debtors: rolesOf(rows, "debtor"),
    secured: rolesOf(rows, "sec_party"),
  };
}

/** The status the rows give the lien: released when any of its rows says so (each row repeats it). */
function released(rows: StagedRow[], unrecognised: Unrecognised): boolean {
  let out = false;
  for (const status of new Set(rows.map((r) => r.fields.lien_status).filter((s): s is string => !!s))) {
    const known = STATUSES[status.toUpperCase()];
    if (!known) unrecognised.note("lien_status", status);
    if (known === "released") out = true;
  }
  return out;
}

/** Description of the termination a Released status stands for when no release record is among the rows. */
const RELEASED = "Lien status: Released";

function assemble(filing: string, staged: StagedRow[], unrecognised: Unrecognised): Assembled[] {
  // The office's order is not known (a file's and a pull's differ): by date, record, then the parties' names.
  // A row without a date goes after those with one: a record's date and kind are read from its first row.
  const rows = [...staged].sort(
    (a, b) =>
      (a.fields.dt_accept ?? UNDATED).localeCompare(b.fields.dt_accept ?? UNDATED) ||
      recordOf(a.fields, filing).localeCompare(recordOf(b.fields, filing)) ||
      namesOf(a.fields).localeCompare(namesOf(b.fields)) ||
      a.rowId.localeCompare(b.rowId),
  );
  const records = new Map<string, StagedRow[]>();
  for (const row of rows) {
    const number = recordOf(row.fields, filing);
    records.set(number, [...(records.get(number) ?? []), row]);
  }
  const own = records.get(filing);
  const lapse = latest((own ?? rows).map((r) => r.fields.dt_lapse));
  const amendments = [...records].flatMap(([number, recordRows]) => {
    const [head] = recordRows;
    if (number === filing || !head) return [];
    return [{ head, rows: recordRows, ...amendmentOf(number, recordRows, own ? lapse : undefined, unrecognised) }];
  });
  // A lien the office marks Released whose release record is not among its rows: dated by its newest
  // dated row (undated rows sort last; one of them would leave the release undated, dated back to the filing).
  const newest = rows.findLast((r) => r.fields.dt_accept) ?? rows.at(-1);
  if (!newest) return [];
  if (
    released(rows, unrecognised) &&
    !amendments.some((a) => amendmentKind(a.amendment.amendment_financing_type_description ?? "") === "termination")
  ) {
    amendments.push({
      head: newest,
      rows: [newest],
      amendment: {
        amendment_financing_number: `${filing}-RELEASED`,
        amendment_financing_date: newest.fields.dt_accept,
        amendment_financing_type_description: RELEASED,
      },
      debtors: { parties: [], rows: [] },
      secured: { parties: [], rows: [] },
    });
  }
  if (!own) {
    return amendments.map((a) => ({
      entry: {
        initial_financing_number: filing,
        jurisdiction_state: "CT",
        ...a.amendment,
        involved_parties: { debtor_parties: a.debtors.parties, secured_parties: a.secured.parties },
      },
      rows: a.rows,
      from: { filing: a.head, debtors: a.debtors.rows, secured: a.secured.rows, amendments: [] },
      notes: [],
    }));
  }
  const [head] = own;
  if (!head) return [];
  const notes: FeedWarning[] = [];
  const kind = filingKind(head.fields, unrecognised, notes);
  // Every party of the lien, its own record's first: an amendment's new debtor is searchable too.
  const debtors = rolesOf([...own, ...amendments.flatMap((a) => a.rows)], "debtor");
  const secured = rolesOf([...own, ...amendments.flatMap((a) => a.rows)], "sec_party");
  return [
    {
      entry: {
        initial_financing_number: filing,
        initial_financing_date: head.fields.dt_accept,
        jurisdiction_state: "CT",
        filing_kind: kind,
        ...(lapse !== undefined ? { estimated_lien_lapse_date: lapse } : {}),
        filing_office: connecticut.office,
        involved_parties: { debtor_parties: debtors.parties, secured_parties: secured.parties },
        amendments: amendments.map((a) => a.amendment),
      },
      rows,
      from: { filing: head, debtors: debtors.rows, secured: secured.rows, amendments: amendments.map((a) => a.head) },
      notes,
    },
  ];
}

/** The kind of a lien from its own record: a filing type that names one, else its lien type. */
function filingKind(row: SodaRow, unrecognised: Unrecognised, notes: FeedWarning[]): FilingKind {
  const type = row.cd_flng_type;
  let byType: FilingKind | null = null;
  if (type !== undefined) {
    byType = lookup<FilingKind | null>(ORIGINAL_TYPES, "cd_flng_type", type, unrecognised, () => null);
  }
  if (byType) return byType;
  const lien = row.tx_lien_descript;
  if (lien === undefined) return "standard";
  return lookup(LIEN_TYPES, "tx_lien_descript", lien, unrecognised, (code) => {
    const kind = kindOfWords(code);
    notes.push({
      path: ["filing_kind"],
      message: `${JSON.stringify(code)} is not a lien type known here: read as ${kind}`,
    });
    return kind;
  });
}

export const connecticut: Source = {
  id: "ct",
  state: "CT",
  office: "Connecticut Secretary of the State",
  portal: "https://data.ct.gov",
  tables: [
    {
      tab: "ct",
      dataset: "xfev-8smz",
      title: "UCC lien filings",
      marks: ["id_lien_flng_nbr", "id_ucc_flng_nbr", "cd_flng_type", "tx_lien_descript", "dt_accept"],
      dates: ["dt_accept", "dt_lapse"],
      flags: [],
      dateColumn: "dt_accept",
      exportHeaders: EXPORT_HEADERS,
      key(row) {
        const lien = row.id_lien_flng_nbr;
        const own = row.id_ucc_flng_nbr;
        if (!lien && !own) return { error: "id_lien_flng_nbr and id_ucc_flng_nbr: missing: the row names no filing" };
        let filing = lien;
        if (!filing) {
          // A lien's own record without the lien's number is its own; another record's lien is unknown.
          const type = row.cd_flng_type;
          if (type === undefined || ORIGINAL_TYPES[type.toUpperCase()] === undefined) {
            return { error: "id_lien_flng_nbr: missing: the lien this record is filed against is unknown" };
          }
          filing = own;
        }
        return { rowId: rowHash(row, MUTABLE), filing: filing ?? null, part: null };
      },
    },
  ],
  columns: {
    number: "id_lien_flng_nbr",
    date: "dt_accept",
    lapse: "dt_lapse",
    kind: "tx_lien_descript",
    amendment: { number: "id_ucc_flng_nbr", date: "dt_accept", description: "cd_flng_type", lapse: "dt_lapse" },
    debtor: partyColumns("debtor"),
    secured: partyColumns("sec_party"),
  },
  assemble,
};

function partyColumns(prefix: "debtor" | "sec_party") {
  return {
    name: `${prefix}_nm_bus or ${prefix}_nm_last`,
    type: `${prefix}_nm_bus or ${prefix}_nm_last`,
    street1: `${prefix}_ad_str1`,
    street2: `${prefix}_ad_str2`,
    city: `${prefix}_ad_city`,
    state: `${prefix}_ad_state`,
    zip_code: `${prefix}_ad_zip`,
    country: "country (none: the register records none)",
  };
}
