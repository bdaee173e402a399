/**
 * Narrow stored forms of values the code handles as text. Each is a Drizzle
 * column type: rows read come back in the API's form, and values compared
 * with such a column (eq, gte, inArray, insert, set) are encoded on the
 * way in, so queries and presenters keep working with text. Raw SQL over
 * these columns sees the stored integers.
 *
 * Why: a timestamp is 20 bytes as text and 4 as an integer, and filing
 * times are copied into every party row and every list index (about a
 * dozen copies per filing); a date is 10 bytes as text and 2 as a day
 * number; a kind or type is a one-byte code or, for 0 and 1, no byte at all
 * (SQLite stores those two in the record header); an industry, stored in a
 * debtor row and three indexes, is 18 bytes of text and one byte as a code
 * (written as an integer: withIntegerCodes).
 */
import { getTableColumns, sql } from "drizzle-orm";
import { customType, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { isoDay, isoSeconds } from "../domain/time.ts";

/**
 * An instant, served as ISO 8601 UTC to the second with Z (how every loader
 * writes it), stored as whole seconds since 1970. Integer order is time
 * order, as text order was. A bound with a fraction of a second (none is
 * built today) is cut to its second, which keeps `>=` as text compared it.
 */
export const instant = customType<{ data: string; driverData: number }>({
  dataType: () => "integer",
  toDriver(iso) {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) throw new Error(`not a timestamp: ${iso}`);
    return Math.floor(ms / 1000);
  },
  fromDriver: (seconds) => isoSeconds(Number(seconds) * 1000),
});

/** A date, served as YYYY-MM-DD, stored as days since 1970-01-01 (in date order). */
export const day = customType<{ data: string; driverData: number }>({
  dataType: () => "integer",
  toDriver(date) {
    const ms = Date.parse(`${date}T00:00:00Z`);
    if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`not a date: ${date}`);
    return ms / 86_400_000;
  },
  fromDriver: (days) => isoDay(Number(days)),
});

/**
 * A label that is usually one of `values` (stored as its position, an
 * integer) and may be any other text (stored as text). The column has no
 * type affinity (BLOB), so SQLite keeps each value as given: the text "12"
 * stays text and never reads back as the twelfth value, and a position
 * bound as a number stays a REAL, so the loaders write it as an integer
 * (withIntegerCodes). Append new values at the end only.
 */
export function labelCode<const T extends readonly [string, ...string[]]>(values: T) {
  return customType<{ data: string; driverData: number | string }>({
    dataType: () => "blob",
    toDriver(label) {
      const code = values.indexOf(label);
      return code < 0 ? label : code;
    },
    fromDriver(stored) {
      if (typeof stored !== "number") return String(stored);
      const label = values[stored];
      if (label === undefined) throw new Error(`stored code ${stored} names none of ${values.join(", ")}`);
      return label;
    },
  });
}

/**
 * `rows` with each value of a column of no type affinity (labelCode) written
 * through an expression that stores a code as an integer: D1 binds every
 * number as a REAL, and such a column keeps a REAL as bound, 8 bytes in the
 * row and in each index entry where a code as an integer takes 1 (and 10.0
 * where SQL writes it into a listed form, src/db/listed.ts). Every row gets
 * the same expression, a text or null passing through it unchanged, so a
 * statement's text stays the same from group to group; it binds its value
 * three times (integerCodeParams).
 */
export function withIntegerCodes<R extends Record<string, unknown>>(table: SQLiteTable, rows: R[]): R[] {
  const untyped = untypedColumns(table);
  if (untyped.length === 0) return rows;
  return rows.map((row) => {
    const out: Record<string, unknown> = { ...row };
    for (const [key, column] of untyped) {
      if (!(key in row)) continue;
      const value = row[key];
      const stored = value === null || value === undefined ? null : column.mapToDriverValue(value);
      out[key] = sql`iif(typeof(${stored}) = 'real', cast(${stored} as integer), ${stored})`;
    }
    return out as R;
  });
}

/** Parameters a row binds beyond one a column, through withIntegerCodes. */
export const integerCodeParams = (table: SQLiteTable) => 2 * untypedColumns(table).length;

/** Whether a column has no type affinity, so SQLite keeps a value as bound: a number as a REAL (withIntegerCodes). */
export const keepsAsBound = (column: SQLiteColumn) => column.getSQLType() === "blob";

const untypedColumns = (table: SQLiteTable) =>
  Object.entries(getTableColumns(table)).filter(([, column]) => keepsAsBound(column));

/**
 * One of `values`, stored as its position in the list. Append new values
 * at the end only: a stored code means the value at its position.
 */
export function enumCode<const T extends readonly [string, ...string[]]>(values: T) {
  return customType<{ data: T[number]; driverData: number }>({
    dataType: () => "integer",
    toDriver(value) {
      const code = values.indexOf(value);
      if (code < 0) throw new Error(`not one of ${values.join(", ")}: ${value}`);
      return code;
    },
    fromDriver(code) {
      const value = values[Number(code)];
      if (value === undefined) throw new Error(`stored code ${code} names none of ${values.join(", ")}`);
      return value;
    },
  });
}

/**
 * A set of `values` as stored in one text column elsewhere ("A|B": distinct,
 * sorted, joined with "|"; "" for none), stored as a bit mask: value i is
 * bit 2^i. Equal sets have equal masks, so equality still finds one set.
 */
export function setMask<const T extends readonly [string, ...string[]]>(values: T) {
  return customType<{ data: string; driverData: number }>({
    dataType: () => "integer",
    toDriver(set) {
      let mask = 0;
      for (const label of set === "" ? [] : set.split("|")) {
        const i = values.indexOf(label);
        if (i < 0) throw new Error(`not one of ${values.join(", ")}: ${label}`);
        mask |= 1 << i;
      }
      return mask;
    },
    fromDriver: (mask) => maskLabels(values, Number(mask)).join("|"),
  });
}

/** The labels of a mask, sorted (as a stored set's text lists them). */
function maskLabels(values: readonly string[], mask: number): string[] {
  return values.filter((_, i) => (mask & (1 << i)) !== 0).sort();
}

/** The bit of `label` in a setMask over `values`. */
export function maskBit(values: readonly string[], label: string): number {
  const i = values.indexOf(label);
  return i < 0 ? 0 : 1 << i;
}

/**
 * A 47-bit hash of `text` (two 32-bit FNV-1a variants, cut), so a stored
 * integer key takes 6 bytes instead of the text. Used where the key is only
 * ever compared for equality within one debtor's rows, never shown.
 */
export function hashKey(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (b >>> 17) * 2 ** 32 + (a >>> 0);
}

/** Bytes of one address key in an addressKeySet: hashKey() stays under 2^48. */
const ADDRESS_KEY_BYTES = 6;

/**
 * A set of address keys (hashKey() values), stored as one blob of 6-byte
 * big-endian numbers in no particular order: a debtor's thousand addresses
 * are one row of 6 KB rather than a thousand rows. The loader writes it in
 * SQL (packedAddressKeys); D1 hands a blob back as an ArrayBuffer or as an
 * array of byte values, node:sqlite as a Uint8Array.
 */
export const addressKeySet = customType<{ data: number[]; driverData: ArrayBuffer | ArrayLike<number> }>({
  dataType: () => "blob",
  toDriver(keys) {
    const bytes = new Uint8Array(keys.length * ADDRESS_KEY_BYTES);
    keys.forEach((key, i) => {
      if (!Number.isInteger(key) || key < 0 || key >= 2 ** 48) throw new Error(`not an address key: ${key}`);
      for (let b = 0; b < ADDRESS_KEY_BYTES; b++) {
        bytes[i * ADDRESS_KEY_BYTES + b] = Math.floor(key / 2 ** (8 * (ADDRESS_KEY_BYTES - 1 - b))) % 256;
      }
    });
    return bytes;
  },
  fromDriver(value) {
    const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : value;
    const keys: number[] = [];
    for (let i = 0; i + ADDRESS_KEY_BYTES <= bytes.length; i += ADDRESS_KEY_BYTES) {
      let key = 0;
      for (let b = 0; b < ADDRESS_KEY_BYTES; b++) key = key * 256 + (bytes[i + b] ?? 0);
      keys.push(key);
    }
    return keys;
  },
});

/** SQL packing the address keys of `column`'s group the way addressKeySet stores them (unhex: SQLite 3.41). */
export const packedAddressKeys = (column: SQLiteColumn) =>
  sql<number[]>`unhex(group_concat(printf('%012x', ${column}), ''))`;
