/**
 * Reading a filing feed: the format comes from the file name, every record
 * is read into the lien shape and validated and normalized by one schema
 * (schema.ts), and each comes out as a filing or an amendment ready for the
 * loader (with the warnings of its repairs and gaps), or as a reject saying
 * where and why. Files stream: nothing holds more than one record (one CSV
 * filing's rows, one XML FileDetail).
 */
import type { FilingRecord } from "../db/records.ts";
import { csvFilings, FeedFileError } from "./csv.ts";
import { readLines } from "./lines.ts";
import {
  describeIssues,
  describeWarnings,
  entrySchema,
  type ParsedAmendment,
  type ParsedEntry,
  pathLabel,
  type SchemaOptions,
} from "./schema.ts";
import { xmlLabel, xmlRecords } from "./xml.ts";

export { FeedFileError };

/** Where a record is in its file. */
export interface Place {
  /** The input file, as named on the command line. */
  file: string;
  /** 1-based line of the record (its first line, for a record of several). */
  line: number;
  /** Last line, when the record spans several (CSV, XML). */
  end_line?: number;
}

/** A record that was not loaded, as written to the rejects file. */
export interface Reject extends Place {
  reason: string;
  /** The line(s) as read. */
  raw: string;
}

/** A record loaded with repairs or gaps, as written to the warnings file. */
export interface Warning extends Place {
  /** `STATE NUMBER` of the filing (of the amendment's filing). */
  filing: string;
  /** For an amendment record, its number. */
  amendment?: string;
  reason: string;
}

export type FeedItem =
  | {
      record: FilingRecord;
      /** Whether the record adds to the stored filing (bulk XML) rather than replacing it. */
      merge: boolean;
      place: Place;
      warning: Warning | null;
      /** The office's as-of date for the file (YYYY-MM-DD), when it states one (an IACA ThruDate). */
      asOf?: string;
    }
  | { amendment: ParsedAmendment; place: Place; warning: Warning | null }
  | { reject: Reject };

export type FeedFormat = "ndjson" | "csv" | "xml";

/** The format of a feed file by its extension: .ndjson or .jsonl, .csv, or .xml. */
export function feedFormat(file: string): FeedFormat | null {
  const ext = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase();
  if (ext === "ndjson" || ext === "jsonl") return "ndjson";
  if (ext === "csv") return "csv";
  if (ext === "xml") return "xml";
  return null;
}

export interface ReadOptions extends SchemaOptions {
  format?: FeedFormat;
}

function item(
  entry: ParsedEntry,
  place: Place,
  merge: boolean,
  label: (p: readonly PropertyKey[]) => string,
): FeedItem {
  const filing =
    entry.type === "filing" ? `${entry.record.state} ${entry.record.number}` : `${entry.state} ${entry.filingNumber}`;
  const warning: Warning | null =
    entry.warnings.length === 0
      ? null
      : {
          ...place,
          filing,
          ...(entry.type === "amendment" ? { amendment: entry.amendment.number } : {}),
          reason: describeWarnings(entry.warnings, label),
        };
  return entry.type === "filing"
    ? { record: entry.record, merge, place, warning }
    : { amendment: entry, place, warning };
}

/** An office's as-of date written YYYYMMDD (IACA) or YYYY-MM-DD, as YYYY-MM-DD; undefined if it is not a real day. */
function officeDate(text: string | undefined): string | undefined {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text ?? "");
  if (!m) return undefined;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === date ? date : undefined;
}

/** Records of the feed `file` read from `body`. */
export async function* readFeed(
  file: string,
  body: ReadableStream<Uint8Array>,
  options: ReadOptions = {},
): AsyncGenerator<FeedItem> {
  const format = options.format ?? feedFormat(file);
  if (!format) throw new FeedFileError(`${file}: unknown format; name it .ndjson, .jsonl, .csv or .xml`);
  const schema = entrySchema(options);
  if (format === "ndjson") {
    for await (const { number, text } of readLines(body)) {
      if (text.trim() === "") continue;
      const place = { file, line: number };
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        yield { reject: { ...place, reason: `not valid JSON: ${(err as Error).message}`, raw: text } };
        continue;
      }
      const parsed = schema.safeParse(value);
      if (parsed.success) yield item(parsed.data, place, false, pathLabel);
      else yield { reject: { ...place, reason: describeIssues(parsed.error), raw: text } };
    }
    return;
  }
  if (format === "xml") {
    for await (const record of xmlRecords(body)) {
      const place = { file, line: record.line, ...(record.endLine > record.line ? { end_line: record.endLine } : {}) };
      const parsed = schema.safeParse(record.lien);
      const asOf = officeDate(record.thruDate);
      if (parsed.success) yield { ...item(parsed.data, place, true, xmlLabel), ...(asOf ? { asOf } : {}) };
      else yield { reject: { ...place, reason: describeIssues(parsed.error, xmlLabel), raw: record.raw } };
    }
    return;
  }
  for await (const filing of csvFilings(readLines(body))) {
    const place = { file, line: filing.line, ...(filing.endLine > filing.line ? { end_line: filing.endLine } : {}) };
    if ("error" in filing) {
      yield { reject: { ...place, reason: filing.error, raw: filing.raw } };
      continue;
    }
    const parsed = schema.safeParse(filing.lien);
    if (parsed.success) yield item(parsed.data, place, false, filing.locate);
    else yield { reject: { ...place, reason: describeIssues(parsed.error, filing.locate), raw: filing.raw } };
  }
}
