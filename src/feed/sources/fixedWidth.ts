/**
 * Records of fixed width, as the offices that sell or post bulk files write
 * them (Texas, Florida): each field a run of positions, padded with spaces.
 * A field is read trimmed (collateral text keeps its leading spaces: a line
 * cut mid-text goes on with them), an empty one is left out, and a date is
 * read into YYYY-MM-DD, so a staged row looks like a portal's (soda.ts).
 */
import { isCalendarDay } from "../../domain/time.ts";
import type { ReadLinesOptions } from "../lines.ts";
import type { SodaRow } from "./soda.ts";

/** One field of a record layout, by the 1-based, inclusive positions the office's layout gives. */
export interface FixedField {
  /** The staged field's name. */
  name: string;
  from: number;
  to: number;
  /** What the layout calls it, for messages. */
  label: string;
  /** A date, in the order the office writes it; all zeros or blank is none. */
  date?: "YYYYMMDD" | "MMDDYYYY";
  /** Leading spaces are part of the text. */
  keepLeading?: boolean;
}

/**
 * A line that holds no record: empty, spaces, or the end-of-file mark
 * (Ctrl-Z) some DOS-era writers leave. A file that ends with a blank line
 * is common; read as a record of the wrong length it would be a reject, and
 * Florida's events file is read only when every record has its length.
 */
export function isBlankLine(text: string): boolean {
  const rest = text.trim();
  return rest === "" || rest === "\u001a";
}

/**
 * How these files' lines are decoded: UTF-8, and a line that is not read as
 * Windows-1252 (a superset of Latin-1), whose one byte a character keeps the
 * layout's positions. Neither office says its encoding; a mainframe's export
 * of "RENÉE" in Latin-1 would otherwise be stored as "REN\uFFFDE", found by
 * no search for the name.
 */
export const LATIN_1: ReadLinesOptions = { fallback: "windows-1252" };

/** `field` moved `by` positions to the right. */
export const shifted = (field: FixedField, by: number): FixedField => ({
  ...field,
  from: field.from + by,
  to: field.to + by,
});

/** A fixed-width date as YYYY-MM-DD; null when it is none; undefined when it is no date at all. */
function fixedDate(text: string, order: "YYYYMMDD" | "MMDDYYYY"): string | null | undefined {
  if (text === "" || /^0+$/.test(text)) return null;
  if (!/^\d{8}$/.test(text)) return undefined;
  const [y, m, d] =
    order === "YYYYMMDD"
      ? [text.slice(0, 4), text.slice(4, 6), text.slice(6, 8)]
      : [text.slice(4, 8), text.slice(0, 2), text.slice(2, 4)];
  const day = `${y}-${m}-${d}`;
  return isCalendarDay(day) ? day : undefined;
}

/** Where a field is, for messages: `expiration date (positions 16-23)`. */
const fieldPlace = (field: FixedField) => `${field.label} (positions ${field.from}-${field.to})`;

/** The fields of `line`, or the first one that cannot be read (a date that is not one). */
export function readFields(line: string, fields: readonly FixedField[]): { fields: SodaRow } | { error: string } {
  const out: SodaRow = {};
  for (const field of fields) {
    const raw = line.slice(field.from - 1, field.to);
    const text = field.keepLeading ? raw.trimEnd() : raw.trim();
    if (field.date) {
      const day = fixedDate(text, field.date);
      if (day === undefined)
        return { error: `${fieldPlace(field)}: ${JSON.stringify(text)} is not a date (${field.date})` };
      if (day !== null) out[field.name] = day;
    } else if (text !== "") out[field.name] = text;
  }
  return { fields: out };
}

/**
 * A record `length` characters long holding `values` (each field's text as
 * the office writes it: dates as `YYYYMMDD`, cut to the field's width):
 * what tests and the benchmark write.
 */
export function fixedLine(length: number, fields: readonly FixedField[], values: Readonly<Record<string, string>>) {
  let line = "";
  for (const field of [...fields].sort((a, b) => a.from - b.from)) {
    const value = values[field.name];
    if (value === undefined) continue;
    line = line.padEnd(field.from - 1, " ") + value.slice(0, field.to - field.from + 1);
  }
  return line.padEnd(length, " ").slice(0, length);
}
