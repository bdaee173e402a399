/**
 * What the three adapters share beyond the SODA readers: the office's code
 * values read through tables of the values known (and a count of those that
 * are not), row identities, and parties in the feed's lien shape.
 */
import { clip } from "../../domain/cut.ts";
import { hash64 } from "../../domain/hash64.ts";
import type { AmendmentKind, FilingKind } from "../../domain/kinds.ts";
import { MAX_DESCRIPTION_LENGTH } from "../../domain/limits.ts";
import { filingKindOf } from "../normalize.ts";
import type { SodaRow } from "./soda.ts";

/** Distinct values counted per column; past this many the rest are counted together. */
const MAX_DISTINCT = 50;

/**
 * Code values an adapter met that are not in its tables of known values:
 * by column, each value and how many records carried it. The value is still
 * used (kept as the office's words, or read by a general rule); the count
 * says what the tables miss.
 */
export class Unrecognised {
  readonly counts = new Map<string, Map<string, number>>();

  note(column: string, value: string) {
    let values = this.counts.get(column);
    if (!values) {
      values = new Map();
      this.counts.set(column, values);
    }
    const key = values.has(value) || values.size < MAX_DISTINCT ? value : "(other values)";
    values.set(key, (values.get(key) ?? 0) + 1);
  }

  /** Adds the counts of `other`. */
  add(other: UnrecognisedCounts) {
    for (const [column, values] of Object.entries(other)) {
      for (const [value, n] of Object.entries(values)) for (let i = 0; i < n; i++) this.note(column, value);
    }
  }

  /** As JSON-ready counts: `{column: {value: n}}`. */
  toJSON(): UnrecognisedCounts {
    return Object.fromEntries([...this.counts].map(([c, values]) => [c, Object.fromEntries(values)]));
  }

  get size() {
    return this.counts.size;
  }

  /** `cd_flng_type "LIS PENDENS" (3), ...`: one line for a summary. */
  describe(): string {
    return [...this.counts]
      .flatMap(([column, values]) => [...values].map(([value, n]) => `${column} ${JSON.stringify(value)} (${n})`))
      .join(", ");
  }
}

export type UnrecognisedCounts = Record<string, Record<string, number>>;

/**
 * The value of `code` in a table of known values (matched without case or
 * surrounding space), or `fallback`'s reading of it, counted as unrecognised.
 */
export function lookup<T>(
  table: Readonly<Record<string, T>>,
  column: string,
  code: string,
  unrecognised: Unrecognised,
  fallback: (code: string) => T,
): T {
  const known = table[code.trim().toUpperCase()];
  if (known !== undefined) return known;
  unrecognised.note(column, code);
  return fallback(code);
}

/** Whether `code` is one of `table`'s keys (any case). */
export const isKnown = (table: Readonly<Record<string, unknown>>, code: string) =>
  table[code.trim().toUpperCase()] !== undefined;

/**
 * A lien type an office names that its table does not know: the kind its
 * words name (`State Tax Lien`, `lien_irs`), else `other_lien` (an unknown
 * lien gets a lien's long lapse term, never a financing statement's five years).
 */
export function kindOfWords(code: string): FilingKind {
  return filingKindOf(code.replace(/^lien_(.+)$/i, "$1 lien")) ?? "other_lien";
}

/**
 * The identity of a row that carries no id of its own: a 64-bit hash of its
 * fields (names sorted) other than those the office changes in place.
 */
export function rowHash(row: SodaRow, mutable: readonly string[]): string {
  const text = Object.keys(row)
    .filter((k) => !mutable.includes(k))
    .sort()
    .map((k) => `${k}\u0000${row[k]}`)
    .join("\u0001");
  const [a, b] = hash64(text);
  return a.toString(36).padStart(7, "0") + b.toString(36).padStart(7, "0");
}

/** A party in the feed's lien shape (src/feed/schema.ts validates and normalizes it). */
export interface LienParty {
  name: string;
  type: "Individual" | "Organization";
  address: {
    street1?: string;
    street2?: string;
    city?: string;
    state?: string;
    zip_code?: string;
    country?: string;
  };
}

/**
 * An individual's name from its parts as the one string the exact-name rule
 * reads (`LAST, FIRST MIDDLE SUFFIX`, as src/feed/xml.ts composes IACA's
 * parts); a prefix (`MR`, `DR`) is not part of it. Null without any part.
 */
export function individualName(parts: {
  last?: string;
  first?: string;
  middle?: string;
  suffix?: string;
}): string | null {
  const rest = [parts.first, parts.middle, parts.suffix].filter((p): p is string => !!p);
  if (!parts.last) return rest.length > 0 ? rest.join(" ") : null;
  return rest.length > 0 ? `${parts.last}, ${rest.join(" ")}` : parts.last;
}

/** The fields of a party's address, as named in one office's columns. */
export interface AddressColumns {
  street1: string;
  street2: string;
  city: string;
  state: string;
  zip_code: string;
  country?: string;
}

/** A party's address from `row`'s columns, parts the row leaves out absent. */
export function addressOf(row: SodaRow, columns: AddressColumns): LienParty["address"] {
  const address: LienParty["address"] = {};
  for (const [part, column] of Object.entries(columns) as [keyof AddressColumns, string][]) {
    const value = row[column];
    if (value !== undefined) address[part] = value;
  }
  return address;
}

/**
 * Parties without repeats, in first-seen order: a party given again (one
 * row per party pair repeats the other party) is listed once, and one
 * given without any address beside the same name with one adds nothing.
 */
export function distinctParties<P extends LienParty>(parties: P[]): P[] {
  const who = (p: LienParty) => JSON.stringify([p.name.toUpperCase(), p.type]);
  const located = new Set(parties.filter((p) => Object.keys(p.address).length > 0).map(who));
  const seen = new Set<string>();
  return parties.filter((p) => {
    if (Object.keys(p.address).length === 0 && located.has(who(p))) return false;
    const key = JSON.stringify([p.name.toUpperCase(), p.type, p.address]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Compares two office ids: numerically when both are digits, else as text (`2007F074276`). */
export function compareIds(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b) && a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An amendment's description as the feed keeps it: cut to its limit, the cut marked with an ellipsis. */
export const fitDescription = (text: string) =>
  text.length > MAX_DESCRIPTION_LENGTH ? clip(text, MAX_DESCRIPTION_LENGTH - 1) : text;

/** Sorts after every date (YYYY-MM-DD): a row without one goes after those with one. */
export const UNDATED = "\uffff";

/**
 * An amendment's lapse date as its record gives it. An office repeats the
 * filing's current lapse date on every record, so an amendment keeps its own
 * only when it differs, and a continuation always: the date it repeats is the
 * filing's as continued, which a lien's term (counted from the continuation)
 * would otherwise extend a second time.
 */
export const amendmentLapse = (lapse: string | undefined, filingLapse: string | undefined, kind: AmendmentKind) =>
  lapse !== undefined && (lapse !== filingLapse || kind === "continuation") ? { amendment_lapse_date: lapse } : {};
