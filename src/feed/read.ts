/**
 * Reading a filing feed: the format comes from the file name, every filing
 * is validated and normalized (schema.ts), and each comes out either as a
 * FilingRecord ready for the loader or as a reject saying where and why.
 * Files stream: nothing holds more than one filing (one CSV filing's rows).
 */
import type { FilingRecord } from "../db/records.ts";
import { csvFilings, FeedFileError } from "./csv.ts";
import { readLines } from "./lines.ts";
import { describeIssues, lienSchema } from "./schema.ts";

export { FeedFileError };

/** A filing that was not loaded, as written to the rejects file. */
export interface Reject {
  /** The input file, as named on the command line. */
  file: string;
  /** 1-based line of the filing (its first line, for a CSV filing of several rows). */
  line: number;
  /** Last line, when the filing spans several (CSV). */
  end_line?: number;
  reason: string;
  /** The line(s) as read. */
  raw: string;
}

export type FeedItem = { record: FilingRecord; line: number } | { reject: Reject };

export type FeedFormat = "ndjson" | "csv";

/** The format of a feed file by its extension: .ndjson or .jsonl, or .csv. */
export function feedFormat(file: string): FeedFormat | null {
  const ext = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase();
  if (ext === "ndjson" || ext === "jsonl") return "ndjson";
  if (ext === "csv") return "csv";
  return null;
}

/** Filings of the feed `file` read from `body`; `now` bounds filing dates (none in the future). */
export async function* readFeed(
  file: string,
  body: ReadableStream<Uint8Array>,
  options: { now?: Date; format?: FeedFormat } = {},
): AsyncGenerator<FeedItem> {
  const format = options.format ?? feedFormat(file);
  if (!format) throw new FeedFileError(`${file}: unknown format; name it .ndjson, .jsonl or .csv`);
  const schema = lienSchema(options.now);
  if (format === "ndjson") {
    for await (const { number, text } of readLines(body)) {
      if (text.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        yield { reject: { file, line: number, reason: `not valid JSON: ${(err as Error).message}`, raw: text } };
        continue;
      }
      const parsed = schema.safeParse(value);
      if (parsed.success) yield { record: parsed.data, line: number };
      else yield { reject: { file, line: number, reason: describeIssues(parsed.error), raw: text } };
    }
    return;
  }
  for await (const filing of csvFilings(readLines(body))) {
    const where = { file, line: filing.line, ...(filing.endLine > filing.line ? { end_line: filing.endLine } : {}) };
    if (!filing.lien) {
      yield { reject: { ...where, reason: filing.error!, raw: filing.raw } };
      continue;
    }
    const parsed = schema.safeParse(filing.lien);
    if (parsed.success) yield { record: parsed.data, line: filing.line };
    else yield { reject: { ...where, reason: describeIssues(parsed.error, filing.locate), raw: filing.raw } };
  }
}
