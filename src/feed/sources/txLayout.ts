/**
 * The Texas Secretary of State's bulk UCC files (docs/sources/tx.md): one
 * record a line, its code in position 1, every record of a filing carrying
 * the filing's initial number. Two layouts, told apart by a record's length
 * alone: 2013's (506 characters, a 12-character number in 2-13) and July
 * 2025's (511: the number grows to 17 characters, 2-18, and every later
 * field moves 5 to the right; published for codes 1 and 2, taken to hold for
 * codes 3 to 7 too, unverified). Code 9 is the trailer that ends a file.
 */
import { readLines } from "../lines.ts";
import { FeedFileError } from "../read.ts";
import { type FixedField, fixedLine, isBlankLine, LATIN_1, readFields, shifted } from "./fixedWidth.ts";
import type { RowRead } from "./soda.ts";

/** Record lengths of the two layouts. */
const TX_LAYOUTS = { 2013: 506, 2025: 511 } as const;
export type TxLayout = keyof typeof TX_LAYOUTS;

const TRAILER = "9";

const field = (name: string, from: number, to: number, label: string, extra: Partial<FixedField> = {}) => ({
  name,
  from,
  to,
  label,
  ...extra,
});

/** A party's address after its name, from `at` on (2013 positions). */
const address = (at: number): FixedField[] => [
  field("street", at, at + 109, "street"),
  field("city", at + 110, at + 173, "city"),
  field("state", at + 174, at + 175, "state"),
  field("zip", at + 176, at + 183, "ZIP code"),
  field("zip4", at + 184, at + 189, "ZIP extension"),
  field("country", at + 190, at + 192, "country"),
];

const organization: FixedField[] = [field("name", 14, 313, "name"), ...address(314)];
const individual: FixedField[] = [
  field("last", 14, 63, "last name"),
  field("first", 64, 113, "first name"),
  field("middle", 114, 163, "middle name"),
  field("suffix", 164, 169, "suffix"),
  ...address(170),
];

/** Each record code's fields after the filing number, at 2013's positions. */
const RECORDS: Record<string, FixedField[]> = {
  "1": [
    field("type", 14, 14, "filing type"),
    field("status", 15, 15, "status"),
    field("expires", 16, 23, "expiration date", { date: "YYYYMMDD" }),
    field("pages", 24, 27, "page count"),
    field("document", 28, 47, "document number"),
  ],
  "2": organization,
  "3": individual,
  "4": organization,
  "5": individual,
  "6": [
    field("record", 14, 23, "filing number"),
    field("amendment", 24, 25, "amendment type"),
    field("filed", 26, 33, "filing date", { date: "YYYYMMDD" }),
    field("time", 34, 37, "filing time"),
    field("pages", 38, 41, "pages"),
    field("entered", 42, 49, "entry date", { date: "YYYYMMDD" }),
    field("entered_time", 50, 53, "entry time"),
    field("comment", 54, 309, "history comment"),
    field("document", 310, 329, "document number"),
  ],
  "7": [
    field("ucc3", 14, 23, "UCC-3 filing number"),
    field("seq", 24, 29, "line sequence"),
    field("text", 30, 109, "collateral text", { keepLeading: true }),
  ],
};

/** What each record code holds, for messages. */
const TX_RECORDS: Record<string, string> = {
  "1": "master",
  "2": "organization debtor",
  "3": "individual debtor",
  "4": "organization secured party",
  "5": "individual secured party",
  "6": "amendment",
  "7": "collateral",
};

/** The fields of a record of `code` in `layout`, the code and filing number first. */
function fieldsOf(code: string, layout: TxLayout): FixedField[] | null {
  const rest = RECORDS[code];
  if (!rest) return null;
  const by = layout === 2025 ? 5 : 0;
  return [
    field("code", 1, 1, "record code"),
    field("filing", 2, 13 + by, "initial filing number"),
    ...rest.map((f) => shifted(f, by)),
  ];
}

const layoutOf = (length: number): TxLayout | null =>
  length === TX_LAYOUTS[2013] ? 2013 : length === TX_LAYOUTS[2025] ? 2025 : null;

/**
 * The records of a Texas file, each as its fields (`code`, `filing` and the
 * code's own) or why it cannot be read: a line of neither layout's length,
 * an unknown record code, a date that is not one. Trailers are passed over.
 */
export async function* txRecords(body: ReadableStream<Uint8Array>): AsyncGenerator<RowRead> {
  let lines = 0;
  for await (const { number, text, recoded } of readLines(body, undefined, LATIN_1)) {
    lines = number;
    if (isBlankLine(text)) continue;
    const where = { line: number, endLine: number, raw: text, ...(recoded ? { recoded } : {}) };
    const code = text.charAt(0);
    if (code === TRAILER) continue;
    const layout = layoutOf(text.length);
    if (layout === null) {
      yield {
        ...where,
        error: `a record of ${text.length} characters: neither layout's length (${TX_LAYOUTS[2013]}, of 2013; ${TX_LAYOUTS[2025]}, of 2025)`,
      };
      continue;
    }
    const fields = fieldsOf(code, layout);
    if (!fields) {
      yield { ...where, error: `record code ${JSON.stringify(code)}: not one of 1 to 7 (records) or 9 (the trailer)` };
      continue;
    }
    const read = readFields(text, fields);
    if ("error" in read) yield { ...where, error: `${TX_RECORDS[code]} record (code ${code}): ${read.error}` };
    else yield { ...where, fields: read.fields };
  }
  // A day without filings still has its trailer; a file of no line at all is not the office's.
  if (lines === 0) throw new FeedFileError("empty: no records, not even the trailer");
}

/**
 * The filing numbers a line may name, read where its layout has the number.
 * A line of neither layout's length (a space too many, a record cut short)
 * may be of either, so both readings are held back: the 2025 layout's
 * number is the 2013 one's five positions wider, and read as 2013's alone a
 * 2025 number would be cut short, its filing loaded without the record.
 */
export function txFilingsOf(raw: string): string[] {
  const layout = layoutOf(raw.length);
  const ends = layout === 2013 ? [13] : layout === 2025 ? [18] : [13, 18];
  const numbers = ends.map((end) => raw.slice(1, end).trim()).filter((n) => n !== "");
  return [...new Set(numbers)];
}

/** A record of `layout` holding `values` (the code's fields by name, as written), for tests and the benchmark. */
export function txLine(layout: TxLayout, values: Readonly<Record<string, string>> & { code: string }): string {
  const fields = fieldsOf(values.code, layout);
  if (!fields) throw new Error(`record code ${values.code}: no layout`);
  return fixedLine(TX_LAYOUTS[layout], fields, values);
}
