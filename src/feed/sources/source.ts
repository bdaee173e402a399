/**
 * What an office's adapter is (ct.ts, co.ts, or.ts): its portal and tables,
 * how a row of each table is identified and which filing it belongs to, and
 * how a filing's rows, however many and from whichever tables, become the
 * feed's records. Those records are validated and normalized by the feed's
 * own schema (src/feed/schema.ts), so a register loads with the same rules,
 * rejects and warnings as any feed file.
 */
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/database.ts";
import type { AmendmentKind } from "../../domain/kinds.ts";
import { type FeedItem, feedItem, type Place } from "../read.ts";
import { describeIssues, entrySchema, type FeedWarning, type SchemaOptions } from "../schema.ts";
import type { Unrecognised } from "./codes.ts";
import type { SodaRow } from "./soda.ts";

export const SOURCE_IDS = ["ct", "co", "or", "nyc-acris"] as const;
/** Offices that publish bulk files and no portal (docs/sources/tx.md, fl-flr.md): loaded from the files given, never pulled. */
export const FILE_SOURCE_IDS = ["tx", "fl-flr"] as const;
export type SourceId = (typeof SOURCE_IDS)[number];
/** Any office's id: a portal's (pulled) or one that publishes bulk files. */
export type AnySourceId = SourceId | (typeof FILE_SOURCE_IDS)[number];

/** What identifies a row and ties it to its filing. */
interface RowKey {
  rowId: string;
  /** The filing's number; null when only another table can tell (Colorado's parties: see `joins`). */
  filing: string | null;
  /** Colorado's `fileid`: the transaction a party or collateral row is of. */
  part: string | null;
}

/** One table of an office's dataset (Colorado publishes four; the others one). */
export interface SourceTable {
  /** Its name in source_rows.tab. */
  tab: string;
  /** Its dataset on the portal. */
  dataset: string;
  /** What it holds, for messages. */
  title: string;
  /** Columns only this table has: a file is this table's when its columns include one. */
  marks: readonly string[];
  /** Date columns (read into one spelling) and flag columns (`true` or `false`). */
  dates: readonly string[];
  flags: readonly string[];
  /** The office's date of a row (`--since` filters on it; the newest is the state's data_through); none for Colorado's parties. */
  dateColumn?: string;
  /** The column whose newest day is the state's data_through, where it is not `dateColumn` (ACRIS's `good_through_date`). */
  throughColumn?: string;
  /**
   * Columns the office rewrites on every row with each extract (ACRIS's
   * `good_through_date`): read for data_through, then left out of the staged
   * row, so a new extract of unchanged rows writes nothing.
   */
  volatile?: readonly string[];
  /** A whole export's header names (as headerName reads them) that are not the field names. */
  exportHeaders?: Readonly<Record<string, string>>;
  /** A row's identity, its filing and its part, or why the row cannot be used. */
  key(row: SodaRow): RowKey | { error: string };
  /**
   * `transaction`: its rows name their filing and their part, and give the
   * filing to the source's other rows of the same part (Colorado's parties
   * and collateral), which name none.
   */
  joins?: "transaction";
}

/** A row as staged: its table, identity and filing, its fields, and where it was read. */
export interface StagedRow extends RowKey {
  tab: string;
  fields: SodaRow;
  file: string;
  line: number;
}

/**
 * One record of a filing, in the feed's lien shape, ready for the schema:
 * a whole filing, or (when the filing's own record is not among its rows)
 * one amendment line.
 */
export interface Assembled {
  entry: Record<string, unknown>;
  /** The rows it was made of (the first is where it is reported). */
  rows: StagedRow[];
  /** Which row each party and amendment of `entry` came from, to name a problem by the office's column. */
  from: {
    filing: StagedRow;
    debtors: StagedRow[];
    secured: StagedRow[];
    amendments: StagedRow[];
  };
  /** Amendment kinds the office's own flags give (a termination flag), by amendment number. */
  kinds?: ReadonlyMap<string, AmendmentKind>;
  /** What the adapter read by a general rule (an unknown lien type), as warnings of the record. */
  notes: FeedWarning[];
  /** Why the rows make no record at all (Texas's records of a filing whose master record no file gave): they are a reject. */
  reject?: string;
}

/** The office's column of each field of the lien shape, for messages. */
interface ColumnNames {
  number: string;
  date: string;
  lapse: string;
  kind: string;
  collateral?: string;
  amendment: { number: string; date: string; description: string; lapse: string; collateral?: string };
  debtor: PartyColumnNames;
  secured: PartyColumnNames;
}

export interface PartyColumnNames {
  name: string;
  type: string;
  street1: string;
  street2: string;
  city: string;
  state: string;
  zip_code: string;
  country: string;
}

/** An office's open register. */
export interface Source {
  id: AnySourceId;
  /** The state whose filings it holds. */
  state: string;
  /** The filing office, as filings name it (`filing_office`). */
  office: string;
  /** The portal's address. */
  portal: string;
  tables: readonly SourceTable[];
  columns: ColumnNames;
  /**
   * Statements run after each group of rows is staged, in its batch, that
   * give rows their filing from rows of other tables when a key alone
   * cannot (New York City's: a party from its document, an amendment from
   * the document its reference names). Colorado's join is its table's `joins`.
   */
  links?(db: Db, rows: StagedRow[]): BatchItem<"sqlite">[];
  /**
   * A load's rows of a filing replace the rows earlier loads staged for it
   * (Texas: a file's filing is its whole record); `part` marks each row
   * with the load that last read it (src/feed/sources/bulk.ts).
   */
  replaces?: boolean;
  /** The records of the filing numbered `filing`, from every row staged for it. */
  assemble(filing: string, rows: StagedRow[], unrecognised: Unrecognised): Assembled[];
}

/** The table of `source` whose columns `names` are, or null. */
export function tableOf(source: Source, names: Iterable<string>): SourceTable | null {
  const have = new Set(names);
  let best: SourceTable | null = null;
  let bestScore = 0;
  for (const table of source.tables) {
    const score = table.marks.filter((m) => have.has(m)).length;
    if (score > bestScore) {
      best = table;
      bestScore = score;
    }
  }
  return best;
}

/** `fields` with the table's dates and flags in one spelling. */
export function tidyRow(table: SourceTable, fields: SodaRow, date: (v: string) => string, flag: (v: string) => string) {
  const out: SodaRow = { ...fields };
  for (const c of table.dates) if (out[c] !== undefined) out[c] = date(out[c]);
  for (const c of table.flags) if (out[c] !== undefined) out[c] = flag(out[c]);
  return out;
}

/** Where a record is reported: its first row, with the last line of its rows in that file. */
function placeOf(rows: StagedRow[]): Place {
  const [first] = rows;
  if (!first) return { file: "", line: 0 };
  const end = Math.max(...rows.filter((r) => r.file === first.file).map((r) => r.line));
  return { file: first.file, line: first.line, ...(end > first.line ? { end_line: end } : {}) };
}

/** A record's rows as a reject's `raw`: a JSON array of them, which `--source` reads back. */
const rawOf = (rows: StagedRow[]) => JSON.stringify(rows.map((r) => r.fields));

const ADDRESS_PARTS = new Set(["street1", "street2", "city", "state", "zip_code", "country"]);

/** A lien-shape path as the office's row and column it came from: `line 12 debtor_ad_zip`. */
function labeller(assembled: Assembled, columns: ColumnNames, file: string) {
  const { from } = assembled;
  const at = (row: StagedRow | undefined, column: string) =>
    row ? `${row.file === file ? "" : `${row.file} `}line ${row.line} ${column}` : column;
  const party = (rows: StagedRow[], names: PartyColumnNames, rest: readonly PropertyKey[]) => {
    const [index, field, part] = rest;
    const row = typeof index === "number" ? rows[index] : undefined;
    if (field === "address" && typeof part === "string" && ADDRESS_PARTS.has(part)) {
      return at(row, names[part as keyof PartyColumnNames]);
    }
    return at(row, field === "type" ? names.type : names.name);
  };
  return (path: readonly PropertyKey[]): string => {
    const [top, second, ...rest] = path;
    if (top === "involved_parties") {
      return second === "secured_parties"
        ? party(from.secured, columns.secured, rest)
        : party(from.debtors, columns.debtor, rest);
    }
    const amendment = columns.amendment;
    if (top === "amendments" && typeof second === "number") {
      const field = rest[0];
      const row = from.amendments[second];
      if (field === "amendment_financing_date") return at(row, amendment.date);
      if (field === "amendment_lapse_date") return at(row, amendment.lapse);
      if (field === "amendment_financing_type_description") return at(row, amendment.description);
      return at(row, amendment.number);
    }
    const filing = from.filing;
    switch (top) {
      case "initial_financing_number":
        return at(filing, columns.number);
      case "initial_financing_date":
        return at(filing, columns.date);
      case "estimated_lien_lapse_date":
        return at(filing, columns.lapse);
      case "filing_kind":
        return at(filing, columns.kind);
      case "amendment_financing_number":
        return at(filing, amendment.number);
      case "amendment_financing_date":
        return at(filing, amendment.date);
      case "amendment_lapse_date":
        return at(filing, amendment.lapse);
      case "amendment_financing_type_description":
        return at(filing, amendment.description);
      default:
        return at(filing, String(top ?? "row"));
    }
  };
}

/**
 * The loader's item of an assembled record: validated by the feed schema,
 * the office's own amendment kinds applied and the adapter's notes among its
 * warnings; or a reject naming the office's row and column.
 */
export function assembledItem(source: Source, assembled: Assembled, schema: ReturnType<typeof entrySchema>): FeedItem {
  const place = placeOf(assembled.rows);
  const label = labeller(assembled, source.columns, place.file);
  if (assembled.reject !== undefined) {
    return { reject: { ...place, reason: assembled.reject, raw: rawOf(assembled.rows) } };
  }
  const parsed = schema.safeParse(assembled.entry);
  if (!parsed.success) {
    return { reject: { ...place, reason: describeIssues(parsed.error, label), raw: rawOf(assembled.rows) } };
  }
  const entry = parsed.data;
  const kinds = assembled.kinds;
  if (entry.type === "filing") {
    if (kinds) {
      entry.record.amendments = entry.record.amendments.map((a) => ({ ...a, kind: kinds.get(a.number) ?? a.kind }));
    }
  } else {
    const kind = kinds?.get(entry.amendment.number);
    if (kind) entry.amendment = { ...entry.amendment, kind };
  }
  entry.warnings = [...assembled.notes, ...entry.warnings];
  return feedItem(entry, place, false, label);
}

/** The schema a load of `source` validates its records with. */
export const sourceSchema = (source: Source, options: SchemaOptions) =>
  entrySchema({ ...options, defaultState: source.state });
