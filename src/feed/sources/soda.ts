/**
 * Rows of a Socrata (SODA 2.x) dataset as its portal gives them, read one at
 * a time so a file or a page of any size streams:
 * - JSON: an array of row objects, as `/resource/<id>.json` answers: a field
 *   whose value is null is left out, numbers come as strings;
 * - CSV: `/resource/<id>.csv` (field names as headers) and the whole
 *   export `/api/views/<id>/rows.csv` (display names as headers, dates
 *   written MM/DD/YYYY; Colorado's in camel case).
 * Every row becomes the same SodaRow whichever way it came: field names in
 * lower case, values trimmed text, empty values left out, and the source's
 * date and flag columns in one spelling (`2024-07-19`, `true`), so a row
 * read from a file and from a pull is the same row.
 */
import { csvRecords } from "../csv.ts";
import { readLines } from "../lines.ts";
import { FeedFileError } from "../read.ts";

/** A row of an office's dataset: field name (lower case) to its text; a field without a value is absent. */
export type SodaRow = Record<string, string>;

/** One row read, with where it is, or why it cannot be read. */
export type RowRead = {
  line: number;
  endLine: number;
  raw: string;
  /** The line was not UTF-8 and was read as Windows-1252 (fixed-width files: lines.ts). */
  recoded?: true;
} & ({ fields: SodaRow } | { error: string });

/** A row's JSON text longer than this is not read (it is rejected): rows of these registers are a few hundred bytes. */
const MAX_ROW_CHARS = 1_000_000;

/** A JSON row's value as text: numbers and flags as written, objects (a location) as their JSON; null as none. */
function textOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** `fields` as a SodaRow: names in lower case, values trimmed, empty ones left out. */
function sodaRow(fields: Iterable<[string, unknown]>): SodaRow {
  const row: SodaRow = {};
  for (const [name, value] of fields) {
    const text = textOf(value)?.trim();
    if (text) row[name.toLowerCase()] = text;
  }
  return row;
}

/**
 * The elements of a JSON array, each as its text and lines, scanned
 * character by character (strings and nesting tracked) so that only one
 * element is held at a time.
 */
async function* jsonElements(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ text: string; line: number; endLine: number; tooLong: boolean }> {
  const decoder = new TextDecoder();
  let depth = 0;
  let inString = false;
  let escaped = false;
  let line = 1;
  let opened = false;
  let closed = false;
  /** The element being read: its pieces so far, first line, and whether it is an object or array. */
  let parts: string[] | null = null;
  let partsLength = 0;
  let startLine = 0;
  let container = false;
  let tooLong = false;
  const begin = () => {
    parts = [];
    partsLength = 0;
    startLine = line;
    tooLong = false;
  };
  const keep = (piece: string) => {
    if (!parts || tooLong) return;
    partsLength += piece.length;
    if (partsLength > MAX_ROW_CHARS) tooLong = true;
    else parts.push(piece);
  };
  const end = () => {
    const element = { text: (parts ?? []).join(""), line: startLine, endLine: line, tooLong };
    parts = null;
    return element;
  };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      let from = 0;
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 10) line += 1;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 92) escaped = true;
          else if (c === 34) inString = false;
          continue;
        }
        if (c === 32 || c === 9 || c === 10 || c === 13) continue;
        if (closed) throw new FeedFileError(`line ${line}: text after the end of the array of rows`);
        if (!opened) {
          if (c !== 91)
            throw new FeedFileError(`line ${line}: not a JSON array of rows (it starts with something else)`);
          opened = true;
          depth = 1;
          continue;
        }
        if (depth === 1 && !parts) {
          if (c === 44) continue; // the comma between elements
          if (c === 93) {
            closed = true;
            continue;
          }
          begin();
          from = i;
          container = c === 123 || c === 91;
        }
        if (c === 34) inString = true;
        else if (c === 123 || c === 91) depth += 1;
        else if (c === 125 || c === 93) {
          if (depth === 1) {
            // The end of a primitive element, and of the array.
            keep(text.slice(from, i));
            yield end();
            closed = true;
            continue;
          }
          depth -= 1;
          if (depth === 1 && container) {
            keep(text.slice(from, i + 1));
            yield end();
          }
        } else if (c === 44 && depth === 1 && parts && !container) {
          keep(text.slice(from, i));
          yield end();
        }
      }
      if (parts) keep(text.slice(from));
      if (done) break;
    }
  } finally {
    reader.releaseLock();
  }
  if (!opened) throw new FeedFileError("empty: not a JSON array of rows");
  if (!closed) throw new FeedFileError(`the file ends inside the array of rows (line ${line}): it looks truncated`);
}

/** The rows of a SODA JSON array. */
export async function* sodaJsonRows(body: ReadableStream<Uint8Array>): AsyncGenerator<RowRead> {
  for await (const element of jsonElements(body)) {
    const where = { line: element.line, endLine: element.endLine };
    if (element.tooLong) {
      yield { ...where, raw: "", error: `a row longer than ${MAX_ROW_CHARS.toLocaleString("en-US")} characters` };
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(element.text);
    } catch (err) {
      yield { ...where, raw: element.text, error: `not valid JSON: ${(err as Error).message}` };
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      yield { ...where, raw: element.text, error: "not a row (a JSON object)" };
      continue;
    }
    yield { ...where, raw: element.text, fields: sodaRow(Object.entries(value)) };
  }
}

/** A CSV header cell as a field name: lower case, runs of other characters as `_` (`transactionId` is `transactionid`). */
function headerName(cell: string): string {
  return cell
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/**
 * The rows of a SODA CSV file. `columns` is given the header's names (as
 * headerName reads them) and returns each one's field name (a whole
 * export's display names are not its field names), or throws a
 * FeedFileError when they are not the columns expected.
 */
export async function* sodaCsvRows(
  body: ReadableStream<Uint8Array>,
  columns: (headers: string[]) => string[] = (h) => h,
): AsyncGenerator<RowRead> {
  const fieldsOf = columns;
  let names: string[] | null = null;
  for await (const record of csvRecords(readLines(body))) {
    const where = { line: record.line, endLine: record.endLine, raw: record.raw };
    if (!names) {
      if ("error" in record) throw new FeedFileError(`header (line ${record.line}): ${record.error}`);
      const header = fieldsOf(record.fields.map(headerName));
      const repeated = header.find((c, i) => c !== "" && header.indexOf(c) !== i);
      if (repeated) throw new FeedFileError(`header (line ${record.line}): column ${repeated} appears twice`);
      names = header;
      continue;
    }
    if ("error" in record) {
      yield { ...where, error: record.error };
      continue;
    }
    if (record.fields.length !== names.length) {
      yield { ...where, error: `${record.fields.length} fields where the header names ${names.length}` };
      continue;
    }
    const header = names;
    yield { ...where, fields: sodaRow(record.fields.map((v, i) => [header[i] ?? "", v])) };
  }
  if (!names) throw new FeedFileError("empty: no header line");
}

/** `07/19/2024`, `07/19/2024 01:30:00 PM`, `2024-07-19T00:00:00.000`: a day, and its time when not midnight. */
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AP]M)?)?$/i;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;

/**
 * A SODA date (a floating timestamp) in one spelling: `YYYY-MM-DD`, with
 * `THH:MM:SS` when the time is not midnight. A value that is no such date is
 * returned as it is (the record's validation then says what is wrong).
 */
export function sodaDate(value: string): string {
  let parts: string[] | undefined;
  let m = ISO_DATE.exec(value);
  if (m) parts = [m[1] ?? "", m[2] ?? "", m[3] ?? "", m[4] ?? "0", m[5] ?? "0", m[6] ?? "0"];
  else {
    m = US_DATE.exec(value);
    if (!m) return value;
    let hour = Number(m[4] ?? 0);
    const half = m[7]?.toUpperCase();
    if (half === "PM" && hour < 12) hour += 12;
    if (half === "AM" && hour === 12) hour = 0;
    parts = [m[3] ?? "", m[1] ?? "", m[2] ?? "", String(hour), m[5] ?? "0", m[6] ?? "0"];
  }
  const [y, mo, d, h, mi, s] = parts.map((p, i) => p.padStart(i === 0 ? 4 : 2, "0"));
  const day = `${y}-${mo}-${d}`;
  return h === "00" && mi === "00" && s === "00" ? day : `${day}T${h}:${mi}:${s}`;
}

/** A SODA checkbox (`true`, `false`; in exports also `TRUE`, `Y`, `1`) as `true` or `false`; anything else as it is. */
export function sodaFlag(value: string): string {
  const v = value.toLowerCase();
  if (v === "true" || v === "t" || v === "y" || v === "yes" || v === "1") return "true";
  if (v === "false" || v === "f" || v === "n" || v === "no" || v === "0") return "false";
  return value;
}
