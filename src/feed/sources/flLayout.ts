/**
 * Florida's federal lien registrations as the Department of State posts
 * them (docs/sources/fl-flr.md): four fixed-width files a set, `flrf` (the
 * filings), `flrd` (debtors), `flrs` (secured parties) and `flre` (events),
 * a full set each quarter (`flrf.zip` holding `FLRF.TXT`, ...) and one for
 * each work day (`20210106flrf.txt`, ...). Dates are MMDDYYYY.
 */
import { isCalendarDay } from "../../domain/time.ts";
import { readLines } from "../lines.ts";
import { FeedFileError } from "../read.ts";
import { type FixedField, fixedLine, isBlankLine, LATIN_1, readFields } from "./fixedWidth.ts";
import type { RowRead } from "./soda.ts";

export type FlKind = "flrf" | "flrd" | "flrs" | "flre";

const field = (name: string, from: number, to: number, label: string, date = false): FixedField => ({
  name,
  from,
  to,
  label,
  ...(date ? { date: "MMDDYYYY" as const } : {}),
});

const party: FixedField[] = [
  field("type", 1, 1, "filing type"),
  field("document", 2, 13, "document number"),
  field("name", 14, 68, "name"),
  field("format", 69, 69, "name format"),
  field("street1", 70, 113, "address line 1"),
  field("street2", 114, 157, "address line 2"),
  field("city", 158, 185, "city"),
  field("state", 186, 187, "state"),
  field("zip", 188, 196, "ZIP code"),
  field("country", 197, 198, "country"),
  field("seq", 199, 203, "party sequence"),
  field("relation", 204, 204, "relation to the filing"),
  field("original", 205, 205, "original party"),
  field("status", 206, 206, "status"),
];

/** Each file's record length and fields, as the office's README publishes them. */
export const FL_LAYOUTS: Record<FlKind, { length: number; title: string; fields: FixedField[] }> = {
  flrf: {
    length: 82,
    title: "filings",
    fields: [
      field("document", 1, 12, "document number"),
      field("filed", 13, 20, "filing date", true),
      field("pages", 21, 25, "pages"),
      field("total_pages", 26, 30, "total pages"),
      field("status", 31, 31, "status"),
      field("type", 32, 32, "filing type"),
      field("assessed", 33, 40, "assessment date", true),
      field("cancelled", 41, 48, "cancellation date", true),
      field("expires", 49, 56, "expiration date", true),
      field("utility", 57, 57, "transmitting utility"),
      field("events", 58, 62, "event count"),
      field("debtors_ever", 63, 67, "debtors ever"),
      field("secured_ever", 68, 72, "secured parties ever"),
      field("debtors", 73, 77, "current debtors"),
      field("secured", 78, 82, "current secured parties"),
    ],
  },
  flrd: { length: 206, title: "debtors", fields: party },
  flrs: { length: 206, title: "secured parties", fields: party },
  flre: {
    length: 320,
    title: "events",
    fields: [
      field("event", 1, 12, "event document number"),
      field("document", 13, 24, "original document number"),
      field("actions", 25, 29, "actions in the event"),
      field("event_seq", 30, 34, "event sequence"),
      field("pages", 35, 39, "pages"),
      field("date", 40, 47, "event date", true),
      field("action_seq", 48, 52, "action sequence"),
      field("action", 53, 55, "action code"),
      field("description", 56, 125, "action description"),
      field("name", 126, 180, "name"),
      field("street1", 181, 224, "address line 1"),
      field("street2", 225, 268, "address line 2"),
      field("city", 269, 296, "city"),
      field("state", 297, 298, "state"),
      field("zip", 299, 307, "ZIP code"),
      field("country", 308, 309, "country"),
      field("old_seq", 310, 314, "old party sequence"),
      field("new_seq", 315, 319, "new party sequence"),
      field("party", 320, 320, "party kind"),
    ],
  },
};

/** `flrf.zip`, `FLRF.TXT`, `20210106flrd.txt`: a set's date (none for the quarterly set), the file's kind. */
const NAME = /^(\d{8})?(flr[fdse])\.(txt|zip)$/i;

/** What a file's name says: its kind and its set (`""` for the quarterly set, else the day as YYYYMMDD); null for another name. */
export function flName(path: string): { set: string; kind: FlKind } | null {
  const m = NAME.exec(path.replace(/^.*[\\/]/, ""));
  if (!m) return null;
  return { set: m[1] ?? "", kind: (m[2] ?? "").toLowerCase() as FlKind };
}

/** A set's date (YYYYMMDD) as YYYY-MM-DD, or null when it is not a day. */
export function setDay(set: string): string | null {
  const day = `${set.slice(0, 4)}-${set.slice(4, 6)}-${set.slice(6, 8)}`;
  return isCalendarDay(day) ? day : null;
}

/** The records of one Florida file, or why a line cannot be read (another length, a date that is not one). */
export async function* flRecords(kind: FlKind, body: ReadableStream<Uint8Array>): AsyncGenerator<RowRead> {
  const { length, title, fields } = FL_LAYOUTS[kind];
  let lines = 0;
  for await (const { number, text, recoded } of readLines(body, undefined, LATIN_1)) {
    lines = number;
    if (isBlankLine(text)) continue;
    const where = { line: number, endLine: number, raw: text, ...(recoded ? { recoded } : {}) };
    if (text.length !== length) {
      yield { ...where, error: `a record of ${text.length} characters: ${kind} (${title}) records are ${length}` };
      continue;
    }
    const read = readFields(text, fields);
    yield "error" in read ? { ...where, error: read.error } : { ...where, fields: read.fields };
  }
  if (lines === 0) throw new FeedFileError("empty: no records");
}

/**
 * Why the events file `body` is not read, or null: its lines must all be
 * of the published length (readers of real files found others, whose
 * layout is not known).
 */
export async function eventsUnread(body: ReadableStream<Uint8Array>): Promise<string | null> {
  const { length } = FL_LAYOUTS.flre;
  const found = new Map<number, number>();
  let first: { line: number; length: number } | null = null;
  for await (const { number, text } of readLines(body, undefined, LATIN_1)) {
    if (text.length === length || isBlankLine(text)) continue;
    first ??= { line: number, length: text.length };
    found.set(text.length, (found.get(text.length) ?? 0) + 1);
  }
  if (!first) return null;
  const lengths = [...found]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([n, count]) => `${n} (${count.toLocaleString("en-US")} lines)`)
    .join(", ");
  return `events (flre) are read only when every line has the published ${length} characters: line ${first.line} has ${first.length}; lengths found: ${lengths}`;
}

/** Where each file has the lien's document number (0-based, end exclusive): an event's is its original's. */
const DOCUMENT: Record<FlKind, [number, number]> = { flrf: [0, 12], flrd: [1, 13], flrs: [1, 13], flre: [12, 24] };

/** The lien a line of `kind` names, read where the layout has it; none when the line is too short or it is blank. */
export function flFilingsOf(kind: FlKind, raw: string): string[] {
  const [from, to] = DOCUMENT[kind];
  const number = raw.length >= to ? raw.slice(from, to).trim() : "";
  return number ? [number] : [];
}

/** A record of `kind` holding `values` (fields by name, dates as MMDDYYYY), for tests and the benchmark. */
export const flLine = (kind: FlKind, values: Readonly<Record<string, string>>) =>
  fixedLine(FL_LAYOUTS[kind].length, FL_LAYOUTS[kind].fields, values);
