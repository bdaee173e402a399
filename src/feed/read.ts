/**
 * Reading a filing feed: the format comes from the file name, every record
 * is read into the lien shape and validated and normalized by one schema
 * (schema.ts), and each comes out as a filing or an amendment ready for the
 * loader (with the warnings of its repairs and gaps), or as a reject saying
 * where and why. Files stream: nothing holds more than one record (one CSV
 * filing's rows, one XML FileDetail).
 *
 * A read may cover part of a file (a range step of the platform's loader,
 * src/platform/): it starts at a resume point an earlier read returned and
 * stops at the first record boundary at or past a byte, returning the
 * resume point there. Records are never split: one that straddles the byte
 * is read whole by the range it starts in.
 */
import type { FilingRecord } from "../db/records.ts";
import { isCalendarDay } from "../domain/time.ts";
import {
  assembleGroups,
  type CsvFiling,
  type CsvGroup,
  type CsvResume,
  csvFilings,
  FeedFileError,
  type FilingKey,
} from "./csv.ts";
import { readLines, recodedMessage } from "./lines.ts";
import {
  describeIssues,
  describeWarnings,
  entrySchema,
  type ParsedAmendment,
  type ParsedEntry,
  pathLabel,
  type SchemaOptions,
} from "./schema.ts";
import { LATIN_1 } from "./sources/fixedWidth.ts";
import { type XmlResume, xmlLabel, xmlRecords } from "./xml.ts";

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

export type FeedItem = (
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
  | { reject: Reject }
) & {
  /** From a CSV file: the run of rows it was read from (csv.ts, CsvFiling.group). */
  csv?: CsvGroup | { key: FilingKey };
};

export type FeedFormat = "ndjson" | "csv" | "xml";

/** The format of a feed file by its extension: .ndjson or .jsonl, .csv, or .xml. */
export function feedFormat(file: string): FeedFormat | null {
  const ext = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase();
  if (ext === "ndjson" || ext === "jsonl") return "ndjson";
  if (ext === "csv") return "csv";
  if (ext === "xml") return "xml";
  return null;
}

/**
 * Where reading can start again: the byte and line of the next record, and
 * what its format's reader needs to carry on (CSV's header, XML's encoding
 * and open elements). Small: it is a range step's checkpoint.
 */
export type Resume = { byte: number; line: number } | CsvResume | XmlResume;

export interface ReadOptions extends SchemaOptions {
  format?: FeedFormat;
  /** Start here (`body` then holds the file from `from.byte` on) instead of at the file's start. */
  from?: Resume;
  /** Stop after the first record that ends at or past `byte`, or that makes `records` records read. */
  until?: { byte: number; records?: number };
}

/**
 * A parsed filing or amendment record as the item the loader takes, with its
 * warnings named by `label`, and `recoded`'s: the numbers of its lines that
 * were not UTF-8 and were read as windows-1252.
 */
export function feedItem(
  entry: ParsedEntry,
  place: Place,
  merge: boolean,
  label: (p: readonly PropertyKey[]) => string,
  recoded: readonly number[] = [],
): FeedItem {
  const filing =
    entry.type === "filing" ? `${entry.record.state} ${entry.record.number}` : `${entry.state} ${entry.filingNumber}`;
  // A name read in a guessed encoding may still be wrong: the lender is told which line to check.
  const reasons = [
    ...(entry.warnings.length > 0 ? [describeWarnings(entry.warnings, label)] : []),
    ...(recoded[0] !== undefined ? [recodedMessage({ first: recoded[0], count: new Set(recoded).size })] : []),
  ];
  const warning: Warning | null =
    reasons.length === 0
      ? null
      : {
          ...place,
          filing,
          ...(entry.type === "amendment" ? { amendment: entry.amendment.number } : {}),
          reason: reasons.join("; "),
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
  return isCalendarDay(date) ? date : undefined;
}

/** Each read record of a format's reader, with the resume point after it when reading can start again there. */
async function* records(
  file: string,
  body: ReadableStream<Uint8Array>,
  format: FeedFormat,
  options: ReadOptions,
): AsyncGenerator<{ item: FeedItem; resume?: Resume }> {
  const schema = entrySchema(options);
  const from = options.from;
  if (format === "ndjson") {
    // A line that is not UTF-8 is read as windows-1252 (and says so), not with U+FFFD for its bytes.
    for await (const { number, text, end, recoded } of readLines(body, from, LATIN_1)) {
      if (text.trim() === "") continue;
      const place = { file, line: number };
      const resume = { byte: end, line: number + 1 };
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        yield {
          item: { reject: { ...place, reason: `not valid JSON: ${(err as Error).message}`, raw: text } },
          resume,
        };
        continue;
      }
      const parsed = schema.safeParse(value);
      if (parsed.success)
        yield { item: feedItem(parsed.data, place, false, pathLabel, recoded ? [number] : []), resume };
      else yield { item: { reject: { ...place, reason: describeIssues(parsed.error), raw: text } }, resume };
    }
    return;
  }
  if (format === "xml") {
    for await (const record of xmlRecords(body, from && "xml" in from ? from : undefined)) {
      const place = { file, line: record.line, ...(record.endLine > record.line ? { end_line: record.endLine } : {}) };
      const parsed = schema.safeParse(record.lien);
      const asOf = officeDate(record.thruDate);
      yield {
        item: parsed.success
          ? { ...feedItem(parsed.data, place, true, xmlLabel, record.recoded), ...(asOf ? { asOf } : {}) }
          : { reject: { ...place, reason: describeIssues(parsed.error, xmlLabel), raw: record.raw } },
        resume: record.resume,
      };
    }
    return;
  }
  const csv = from && "csv" in from ? from : undefined;
  for await (const filing of csvFilings(readLines(body, csv, LATIN_1), csv?.csv)) {
    yield { item: csvItem(file, filing, schema), resume: filing.resume };
  }
}

/** A CSV filing (or amendment line) as a feed item. */
function csvItem(file: string, filing: CsvFiling, schema: ReturnType<typeof entrySchema>): FeedItem {
  const place = { file, line: filing.line, ...(filing.endLine > filing.line ? { end_line: filing.endLine } : {}) };
  const from = filing.group ? { csv: filing.group } : {};
  if ("error" in filing) return { reject: { ...place, reason: filing.error, raw: filing.raw }, ...from };
  const parsed = schema.safeParse(filing.lien);
  return parsed.success
    ? { ...feedItem(parsed.data, place, false, filing.locate, filing.recoded), ...from }
    : { reject: { ...place, reason: describeIssues(parsed.error, filing.locate), raw: filing.raw }, ...from };
}

/**
 * A CSV filing whose rows came in several runs, read from all of them
 * together (its runs as read, in file order): its filing, its amendment
 * lines, or the reject that says why its rows do not make one.
 */
export function reassembled(file: string, groups: CsvGroup[], options: SchemaOptions): FeedItem[] {
  const schema = entrySchema(options);
  return assembleGroups(groups).map((filing) => csvItem(file, filing, schema));
}

/**
 * Records of the feed `file` read from `body`. Returns, when it stops at
 * `options.until`, where a later read resumes; null when the file ended.
 */
export async function* readFeed(
  file: string,
  body: ReadableStream<Uint8Array>,
  options: ReadOptions = {},
): AsyncGenerator<FeedItem, Resume | null> {
  const format = options.format ?? feedFormat(file);
  if (!format) throw new FeedFileError(`${file}: unknown format; name it .ndjson, .jsonl, .csv or .xml`);
  let read = 0;
  for await (const { item, resume } of records(file, body, format, options)) {
    yield item;
    read += 1;
    const until = options.until;
    if (until && resume && (resume.byte >= until.byte || read >= (until.records ?? Number.POSITIVE_INFINITY))) {
      return resume;
    }
  }
  return null;
}
