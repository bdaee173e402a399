/**
 * The CSV feed: one row per party (and per amendment) of a filing, as an
 * operator can produce from a spreadsheet. The rows of one filing are
 * usually adjacent; a filing whose rows come in several runs is read as
 * one, from all of its rows (see CsvGroup).
 * Rows are assembled into the feed's lien shape and validated by the same
 * schema as NDJSON lines, so both formats load alike.
 *
 * Fields are split by csv-parse (RFC 4180: quoted fields may hold commas,
 * doubled quotes and line breaks). Records are cut at line breaks outside
 * quotes first, so a malformed row costs that row only: the parser never
 * reads past it into the good rows that follow.
 */
import { parse } from "csv-parse/sync";
import type { Line } from "./lines.ts";
import { filingKindOf, normalizeDate, normalizeText, normalizeTimestamp } from "./normalize.ts";

/** The columns, in the order of docs/feeds/csv.md's table. */
const CSV_COLUMNS = [
  "filing_state",
  "filing_number",
  "filing_date",
  "filing_kind",
  "lapse_date",
  "filing_office",
  "collateral",
  "role",
  "party_type",
  "name",
  "category",
  "street1",
  "street2",
  "city",
  "state",
  "zip",
  "country",
  "amendment_number",
  "amendment_date",
  "amendment_description",
  "amendment_lapse_date",
  "amendment_collateral",
] as const;

type CsvColumn = (typeof CSV_COLUMNS)[number];

/** Columns every file must have (their cells may be empty on amendment rows). Address columns may be left out. */
const REQUIRED_COLUMNS: readonly CsvColumn[] = ["filing_state", "filing_number", "filing_date", "role", "name"];

/** Other accepted spellings of column names (after lower-casing, non-alphanumerics as `_`). */
const ALIASES: Record<string, CsvColumn> = {
  jurisdiction_state: "filing_state",
  initial_financing_number: "filing_number",
  initial_financing_date: "filing_date",
  kind: "filing_kind",
  estimated_lien_lapse_date: "lapse_date",
  office_lapse_date: "lapse_date",
  office: "filing_office",
  collateral_text: "collateral",
  type: "party_type",
  industry: "category",
  street_1: "street1",
  street_2: "street2",
  street_address_1: "street1",
  street_address_2: "street2",
  zip_code: "zip",
  postal_code: "zip",
};

/** Roles of a row: a debtor, a secured party, or an amendment of the filing. */
const ROLES: Record<string, "debtor" | "secured" | "amendment"> = {
  debtor: "debtor",
  secured: "secured",
  secured_party: "secured",
  "secured party": "secured",
  amendment: "amendment",
};

/** A quoted field may span at most this many lines. */
const MAX_RECORD_LINES = 100;
/** Single-line records parsed in one csv-parse call. */
const PARSE_BATCH = 500;

/** Where a record (or a filing's rows) sits in the file, and its text. */
interface Place {
  line: number;
  endLine: number;
  raw: string;
  /** Byte offset just past its last line: where the next record starts. */
  end: number;
  /** Its lines that were not UTF-8, read as windows-1252 (lines.ts), by number. */
  recoded?: number[];
}

/** `recoded` of the lines of a record, when some were read as windows-1252. */
function recodedOf(lines: Line[]): Pick<Place, "recoded"> {
  const recoded = lines.filter((l) => l.recoded).map((l) => l.number);
  return recoded.length > 0 ? { recoded } : {};
}

/** One CSV record: its fields, or why it could not be read. */
export type CsvRecord = Place & ({ fields: string[] } | { error: string });

/** A problem with the file as a whole (its header), which stops its import. */
export class FeedFileError extends Error {
  override name = "FeedFileError";
}

const quoteCount = (text: string) => {
  let n = 0;
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) n++;
  return n;
};

const csvProblem = (err: unknown) =>
  `not a valid CSV row: ${(err instanceof Error ? err.message : String(err)).replace(/ at line \d+/, "")}`;

/** The record of `lines` (one or several, in order). */
function parseOne(lines: Line[]): CsvRecord {
  const first = lines[0];
  const last = lines.at(-1);
  if (!first || !last) throw new Error("a record has at least one line");
  const raw = lines.map((l) => l.text).join("\n");
  const place = { line: first.number, endLine: last.number, raw, end: last.end, ...recodedOf(lines) };
  try {
    const out = parse(raw, { relax_column_count: true }) as string[][];
    const [fields] = out;
    if (out.length === 1 && fields) return { ...place, fields };
    return { ...place, error: `not a valid CSV row: reads as ${out.length} rows` };
  } catch (err) {
    return { ...place, error: csvProblem(err) };
  }
}

/** Single-line records in one call; one by one only when that fails. */
function parseBatch(batch: Line[]): CsvRecord[] {
  try {
    const out = parse(batch.map((l) => l.text).join("\n"), { relax_column_count: true }) as string[][];
    if (out.length === batch.length) {
      return batch.map((l, i) => ({
        line: l.number,
        endLine: l.number,
        raw: l.text,
        end: l.end,
        ...recodedOf([l]),
        fields: out[i] ?? [],
      }));
    }
  } catch {
    // Some line is malformed: find which.
  }
  return batch.map((l) => parseOne([l]));
}

/**
 * The CSV records of a file's lines, in order. A record ends at a line break
 * outside quotes (an even count of quote characters so far). A multi-line
 * record that does not parse, or whose quote never closes within
 * MAX_RECORD_LINES, is reported as its first line alone, and the lines
 * after it are read afresh.
 */
export async function* csvRecords(lines: AsyncIterable<Line>): AsyncGenerator<CsvRecord> {
  let batch: Line[] = [];
  let pending: Line[] = [];
  let quotes = 0;

  function* flush(): Generator<CsvRecord> {
    if (batch.length > 0) yield* parseBatch(batch);
    batch = [];
  }

  function* giveUpFirst(): Generator<CsvRecord> {
    const [first, ...rest] = pending;
    if (!first) return;
    pending = [];
    quotes = 0;
    yield* flush();
    const reason =
      rest.length === 0
        ? "a quoted field is not closed"
        : `a quoted field is not closed within ${rest.length + 1} lines`;
    yield {
      line: first.number,
      endLine: first.number,
      raw: first.text,
      end: first.end,
      ...recodedOf([first]),
      error: `not a valid CSV row: ${reason}`,
    };
    for (const line of rest) yield* take(line);
  }

  function* take(line: Line): Generator<CsvRecord> {
    if (pending.length === 0 && line.text.trim() === "") return;
    pending.push(line);
    quotes += quoteCount(line.text);
    if (quotes % 2 === 1) {
      if (pending.length >= MAX_RECORD_LINES) yield* giveUpFirst();
      return;
    }
    const record = pending;
    pending = [];
    quotes = 0;
    const [head, ...tail] = record;
    if (!head) return;
    if (tail.length === 0) {
      batch.push(head);
      if (batch.length >= PARSE_BATCH) yield* flush();
      return;
    }
    yield* flush();
    const parsed = parseOne(record);
    if ("fields" in parsed) {
      yield parsed;
    } else {
      pending = record;
      yield* giveUpFirst();
    }
  }

  for await (const line of lines) yield* take(line);
  while (pending.length > 0) yield* giveUpFirst();
  yield* flush();
}

/** A header cell as a column name: case and punctuation ignored, aliases resolved. */
function columnName(header: string): string {
  const key = normalizeText(header)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return ALIASES[key] ?? key;
}

/** The column of each header cell; throws FeedFileError for unknown, repeated or missing columns. */
function readHeader(header: CsvRecord): CsvColumn[] {
  if ("error" in header) throw new FeedFileError(`header (line ${header.line}): ${header.error}`);
  const columns = header.fields.map(columnName);
  const unknown = columns.filter((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
  if (unknown.length > 0) {
    throw new FeedFileError(
      `header (line ${header.line}): unknown column${unknown.length > 1 ? "s" : ""} ${unknown.map((c) => JSON.stringify(c)).join(", ")}; the columns are ${CSV_COLUMNS.join(", ")}`,
    );
  }
  const repeated = columns.filter((c, i) => columns.indexOf(c) !== i);
  if (repeated.length > 0) throw new FeedFileError(`header (line ${header.line}): column ${repeated[0]} appears twice`);
  const missing = REQUIRED_COLUMNS.filter((c) => !columns.includes(c));
  if (missing.length > 0) {
    throw new FeedFileError(
      `header (line ${header.line}): missing column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
    );
  }
  return columns as CsvColumn[];
}

type Cells = Partial<Record<CsvColumn, string>>;
type Row = CsvRow;

interface CsvRow extends Place {
  cells: Cells;
  role?: "debtor" | "secured" | "amendment";
  /** Why the row cannot be used, if it cannot. */
  error?: string;
}

/**
 * The rows of one filing, assembled into the feed's lien shape for
 * validation, or why they cannot form one.
 */
export type CsvFiling = Place & {
  /** A zod issue path of `lien` as the CSV line and column it came from. */
  locate: (path: readonly PropertyKey[]) => string;
  /** On the last filing of a run of rows: where reading can start again after it. */
  resume?: CsvResume;
  /**
   * The run of rows this came from: on the first filing of each run, with
   * its rows; on the others (amendment rows read as amendment lines), its
   * key only.
   */
  group?: CsvGroup | { key: FilingKey };
} & ({ lien: Record<string, unknown> } | { error: string });

/** A filing's state and number as its rows give them. */
export interface FilingKey {
  state: string;
  number: string;
}

/**
 * One run of adjacent rows of a filing, as read: a filing whose rows come
 * in several runs is held run by run until its last (src/feed/import.ts)
 * and then read from all of them together (assembleGroups), as if they had
 * been adjacent.
 */
export interface CsvGroup {
  key: FilingKey;
  rows: CsvRow[];
  notes: string[];
}

/**
 * What reading a CSV file needs to start again at a filing boundary: the
 * byte and line of the next row, the header's columns, and the note for
 * the next filing when the row just before it could not be read.
 */
export interface CsvResume {
  byte: number;
  line: number;
  csv: { columns: string[]; spoil?: string };
}

const filingKey = (cells: Cells) =>
  `${normalizeText(cells.filing_state ?? "").toUpperCase()}\u0000${(cells.filing_number ?? "").trim()}`;

/** Empty cells read as absent, so required ones say "is required". */
const cell = (row: Row, column: CsvColumn) => {
  const value = row.cells[column];
  return value === undefined || value.trim() === "" ? undefined : value;
};

const ADDRESS_COLUMNS: Record<string, CsvColumn> = {
  street1: "street1",
  street2: "street2",
  city: "city",
  state: "state",
  zip_code: "zip",
  country: "country",
};
const PARTY_COLUMNS: Record<string, CsvColumn> = { name: "name", type: "party_type", category: "category" };
const AMENDMENT_COLUMNS: Record<string, CsvColumn> = {
  amendment_financing_number: "amendment_number",
  amendment_financing_date: "amendment_date",
  amendment_financing_type_description: "amendment_description",
  amendment_lapse_date: "amendment_lapse_date",
  amendment_collateral: "amendment_collateral",
};
const FILING_COLUMNS: Record<string, CsvColumn> = {
  initial_financing_number: "filing_number",
  initial_financing_date: "filing_date",
  jurisdiction_state: "filing_state",
  filing_kind: "filing_kind",
  estimated_lien_lapse_date: "lapse_date",
  filing_office: "filing_office",
  collateral: "collateral",
};

function party(row: Row) {
  return {
    name: cell(row, "name"),
    type: cell(row, "party_type"),
    category: cell(row, "category") ?? null,
    address: {
      street1: cell(row, "street1"),
      street2: cell(row, "street2") ?? null,
      city: cell(row, "city"),
      state: cell(row, "state"),
      zip_code: cell(row, "zip"),
      country: cell(row, "country") ?? null,
    },
  };
}

/**
 * The one value of a filing-level column across a filing's rows (blank
 * cells aside); a conflict between rows goes to `problems`.
 */
function agreed(rows: Row[], column: CsvColumn, same: (v: string) => string, problems: string[]): string | undefined {
  let first: { row: Row; value: string } | undefined;
  for (const row of rows) {
    const value = cell(row, column);
    if (value === undefined) continue;
    if (!first) first = { row, value };
    else if (same(value) !== same(first.value)) {
      problems.push(
        `rows disagree on ${column}: ${JSON.stringify(first.value)} (line ${first.row.line}) and ${JSON.stringify(value)} (line ${row.line})`,
      );
      return undefined;
    }
  }
  return first?.value;
}

const amendmentOf = (row: Row) => ({
  amendment_financing_number: cell(row, "amendment_number"),
  amendment_financing_date: cell(row, "amendment_date"),
  amendment_financing_type_description: cell(row, "amendment_description"),
  amendment_lapse_date: cell(row, "amendment_lapse_date"),
  amendment_collateral: cell(row, "amendment_collateral"),
});

/**
 * The rows of one filing as its lien; or, when they are amendment rows
 * only (no filing date, no parties), as one amendment line each, for a
 * filing loaded already or later.
 */
function assemble(rows: Row[], notes: string[]): CsvFiling[] {
  const [first] = rows;
  if (!first) return [];
  const last = rows.at(-1) ?? first;
  const recoded = rows.flatMap((r) => r.recoded ?? []);
  const base = {
    line: first.line,
    endLine: last.endLine,
    raw: rows.map((r) => r.raw).join("\n"),
    end: last.end,
    ...(recoded.length > 0 ? { recoded } : {}),
  };
  const debtors = rows.filter((r) => r.role === "debtor");
  const secureds = rows.filter((r) => r.role === "secured");
  const amendments = rows.filter((r) => r.role === "amendment");
  const locate = (path: readonly PropertyKey[]): string => {
    const [top, list, index, ...rest] = path;
    if (top === "involved_parties" && (list === "debtor_parties" || list === "secured_parties")) {
      const row = (list === "debtor_parties" ? debtors : secureds)[index as number];
      if (!row) return `${list === "debtor_parties" ? "debtor" : "secured"} rows`;
      const [field, sub] = rest;
      const column = field === "address" ? ADDRESS_COLUMNS[String(sub)] : PARTY_COLUMNS[String(field)];
      return `line ${row.line} ${column ?? "row"}`;
    }
    if (top === "amendments") {
      const row = amendments[list as number];
      return row ? `line ${row.line} ${AMENDMENT_COLUMNS[String(index)] ?? "row"}` : "amendment rows";
    }
    const column = FILING_COLUMNS[String(top)];
    return column ? `line ${first.line} ${column}` : `lines ${base.line}-${base.endLine}`;
  };
  const problems: string[] = [];
  for (const row of rows) {
    if (row.error) problems.push(`line ${row.line}: ${row.error}`);
    else if (!row.role) {
      problems.push(
        `line ${row.line} role: ${JSON.stringify(row.cells.role ?? "")} is not a role: use debtor, secured or amendment`,
      );
    }
  }
  problems.push(...notes);
  const date = agreed(rows, "filing_date", (v) => normalizeTimestamp(v) ?? v.trim(), problems);
  const kind = agreed(rows, "filing_kind", (v) => filingKindOf(v) ?? normalizeText(v).toLowerCase(), problems);
  const lapse = agreed(rows, "lapse_date", (v) => normalizeDate(v) ?? v.trim(), problems);
  const office = agreed(rows, "filing_office", normalizeText, problems);
  const collateral = agreed(rows, "collateral", normalizeText, problems);
  if (problems.length > 0) return [{ ...base, error: problems.join("; "), locate }];
  // Rows of amendments only are amendments of a filing loaded apart, whether or not they repeat its date.
  if (amendments.length === rows.length) {
    return amendments.map((row) => ({
      line: row.line,
      endLine: row.endLine,
      raw: row.raw,
      end: row.end,
      ...(row.recoded ? { recoded: row.recoded } : {}),
      locate: (path) => {
        const column = AMENDMENT_COLUMNS[String(path[0])] ?? FILING_COLUMNS[String(path[0])];
        return `line ${row.line}${column ? ` ${column}` : ""}`;
      },
      lien: {
        initial_financing_number: cell(row, "filing_number"),
        jurisdiction_state: cell(row, "filing_state"),
        ...amendmentOf(row),
      },
    }));
  }
  return [
    {
      ...base,
      locate,
      lien: {
        initial_financing_number: cell(first, "filing_number"),
        initial_financing_date: date,
        jurisdiction_state: cell(first, "filing_state"),
        ...(kind !== undefined ? { filing_kind: kind } : {}),
        ...(lapse !== undefined ? { estimated_lien_lapse_date: lapse } : {}),
        filing_office: office,
        collateral,
        involved_parties: { debtor_parties: debtors.map(party), secured_parties: secureds.map(party) },
        amendments: amendments.map(amendmentOf),
      },
    },
  ];
}

/**
 * The filing key of a row that csv-parse could not read, when its state and
 * number cells come before any quote (naive comma splitting is right there).
 */
function guessKey(raw: string, columns: CsvColumn[]): string | undefined {
  const cells: Cells = {};
  const stateAt = columns.indexOf("filing_state");
  const numberAt = columns.indexOf("filing_number");
  const fields = (raw.split("\n", 1)[0] ?? "").split(",");
  if ([stateAt, numberAt].some((i) => i >= fields.length || fields.slice(0, i + 1).some((f) => f.includes('"')))) {
    return undefined;
  }
  cells.filing_state = fields[stateAt];
  cells.filing_number = fields[numberAt];
  return filingKey(cells);
}

/**
 * The filings of a CSV file: its first record is the header, and each run
 * of adjacent rows with the same filing_state and filing_number is one
 * filing (or, amendment rows only, one amendment line each), carrying its
 * run (CsvFiling.group) so that a filing whose rows come in several runs
 * can be read again from all of them (assembleGroups). A row that cannot
 * be read spoils the filing it belongs to, so that filing is rejected
 * whole rather than loaded without it; when even its filing cannot be
 * told, both filings around it are.
 *
 * `from` starts at a filing boundary instead of the header (a range of the
 * file, src/platform/). Nothing is kept from one run to the next: memory
 * holds one run of rows.
 */
export async function* csvFilings(lines: AsyncIterable<Line>, from?: CsvResume["csv"]): AsyncGenerator<CsvFiling> {
  let columns = from?.columns as CsvColumn[] | undefined;
  let group: Row[] = [];
  let groupKey: string | undefined;
  let groupNotes: string[] = [];
  /** An unreadable row of unknown filing, which also spoils the next filing. */
  let spoilNext = from?.spoil;
  const close = (): CsvFiling[] => {
    const notes = [...groupNotes];
    const out = assemble(group, notes);
    const last = out.at(-1);
    if (last && columns) {
      last.resume = {
        byte: last.end,
        line: last.endLine + 1,
        csv: { columns, ...(spoilNext !== undefined ? { spoil: spoilNext } : {}) },
      };
    }
    const key = groupKey === undefined ? undefined : keyOf(groupKey);
    if (key) {
      for (const [i, filing] of out.entries()) filing.group = i === 0 ? { key, rows: group, notes } : { key };
    }
    group = [];
    groupKey = undefined;
    groupNotes = [];
    return out;
  };
  for await (const record of csvRecords(lines)) {
    if (!columns) {
      columns = readHeader(record);
      continue;
    }
    const cells: Cells = {};
    const { line, endLine, raw, end, recoded } = record;
    const row: Row = { line, endLine, raw, end, ...(recoded ? { recoded } : {}), cells };
    if ("fields" in record) {
      record.fields.forEach((value, i) => {
        const column = columns?.[i];
        if (column) cells[column] = value;
      });
      if (record.fields.length !== columns.length) {
        row.error = `has ${record.fields.length} fields, the header has ${columns.length}`;
      }
      row.role = ROLES[normalizeText(cells.role ?? "").toLowerCase()];
    } else {
      row.error = record.error;
    }
    let key = "fields" in record ? filingKey(cells) : guessKey(record.raw, columns);
    const unknownFiling = key === undefined;
    // A row of unknown filing joins the filing being read...
    if (unknownFiling) key = groupKey;
    if (group.length > 0 && key !== groupKey) yield* close();
    else if (group.length > 0 && !unknownFiling) spoilNext = undefined; // the unreadable row sat inside this filing
    if (group.length === 0) {
      groupKey = key;
      if (spoilNext) groupNotes.push(spoilNext);
      spoilNext = undefined;
    }
    group.push(row);
    // ... and spoils the next one too, since it may have been that one's.
    if (unknownFiling)
      spoilNext = `line ${row.line} just before this filing could not be read and may be one of its rows`;
  }
  if (!columns) throw new FeedFileError("the file is empty: expected a header line");
  if (group.length > 0) yield* close();
}

/** A filing key of filingKey() as its state and number; none for a row with neither. */
function keyOf(key: string): FilingKey | undefined {
  const [state = "", number = ""] = key.split("\u0000");
  return state === "" && number === "" ? undefined : { state, number };
}

/**
 * The filings of a filing's runs of rows read together, in file order, as
 * if they had been adjacent: its parties and amendments from every run,
 * its date, kind and other facts agreed across them.
 */
export function assembleGroups(groups: CsvGroup[]): CsvFiling[] {
  const rows = groups.flatMap((g) => g.rows).sort((a, b) => a.line - b.line);
  return assemble(
    rows,
    groups.flatMap((g) => g.notes),
  );
}
