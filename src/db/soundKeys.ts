/**
 * How the rows of debtor_sound_keys are laid out, written and read.
 *
 * A row is one integer, its row id: the sound key (KEY_BITS), the state
 * (STATE_BITS) and the debtor_names id (NAME_ID_BITS), high bits first:
 *
 *   key · state · name id    (27 + 10 + 26 = 63 bits, always positive)
 *
 * so the names filed under a key in a state are one contiguous range of row
 * ids, and under a key in any state one wider range: each probe of
 * similar-name search is a bounded range read of the table's own B-tree,
 * about 15 bytes a row on disk. The numbers are built and taken apart in SQL, where
 * integers have 64 bits; JavaScript only handles the key and the state.
 */
import { type SQL, sql } from "drizzle-orm";
import { KEY_BITS } from "../domain/soundKeys.ts";
import type { Db } from "./database.ts";
import type { SoundKeyRow } from "./records.ts";
import { debtorNames, debtorSoundKeys } from "./schema.ts";

const STATE_BITS = 10;
export const NAME_ID_BITS = 26;
if (KEY_BITS + STATE_BITS + NAME_ID_BITS > 63) throw new Error("sound key rows must fit a positive SQLite integer");

/** Debtor names with ids from here on are not indexed for similar-name search (67 million). */
export const MAX_INDEXED_NAME_ID = 2 ** NAME_ID_BITS - 1;

/** A state code as a number below 2 ** STATE_BITS: its two letters in base 26. */
function stateNumber(state: string): number {
  const [a, b] = [state.charCodeAt(0) - 65, state.charCodeAt(1) - 65];
  const valid = state.length === 2 && a >= 0 && a < 26 && b >= 0 && b < 26;
  return valid ? a * 26 + b : 2 ** STATE_BITS - 1;
}

const NAME_SHIFT = sql.raw(String(NAME_ID_BITS));
const KEY_SHIFT = sql.raw(String(STATE_BITS + NAME_ID_BITS));

/** The name id held in a row id. */
export const nameIdOf = (rowId: SQL) => sql`(${rowId} & ${sql.raw(String(MAX_INDEXED_NAME_ID))})`;

/**
 * A row id's place among the rows of its key: its state and name id, the
 * order of a key's range across every state, as a number JavaScript holds
 * exactly (36 bits). Rows of different shards compare by it too, since a
 * state lives in one shard; the parts of a split state number their names
 * each on its own, so their rows compare by it only roughly
 * (docs/fan-out.md, "A state over two databases").
 */
export const placeInKeyOf = (rowId: SQL) => sql`(${rowId} & ${sql.raw(String(2 ** (STATE_BITS + NAME_ID_BITS) - 1))})`;

/**
 * The half-open range [from, to) of row ids holding `key` (an SQL integer
 * expression), in `state` or, without one, in every state.
 */
export function keyRange(key: SQL, state?: string): { from: SQL; to: SQL } {
  if (state === undefined) return { from: sql`(${key} << ${KEY_SHIFT})`, to: sql`((${key} + 1) << ${KEY_SHIFT})` };
  const n = stateNumber(state);
  return {
    from: sql`((${key} << ${KEY_SHIFT}) + (${sql.raw(String(n))} << ${NAME_SHIFT}))`,
    to: sql`((${key} << ${KEY_SHIFT}) + (${sql.raw(String(n + 1))} << ${NAME_SHIFT}))`,
  };
}

/**
 * Bytes of JSON per statement: one parameter, well within what D1 takes in
 * a statement even when names run to a thousand characters.
 */
const JSON_BYTES_PER_STATEMENT = 50_000;

/**
 * Writes the sound keys of `rows` against the debtor_names rows they belong
 * to; run after the names are refreshed. Keys already there are left alone.
 */
export function soundKeyStatements(db: Db, rows: SoundKeyRow[], maxBytes = JSON_BYTES_PER_STATEMENT) {
  const parts: string[][] = [];
  let part: string[] = [];
  let bytes = 0;
  for (const r of rows) {
    const entry = JSON.stringify([r.key, stateNumber(r.state), r.nameKey, r.state]);
    if (part.length > 0 && bytes + entry.length > maxBytes) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(entry);
    bytes += entry.length + 1;
  }
  if (part.length > 0) parts.push(part);
  return parts.map((entries) =>
    db
      .insert(debtorSoundKeys)
      .select(
        sql`select ((j.value ->> 0) << ${KEY_SHIFT}) | ((j.value ->> 1) << ${NAME_SHIFT}) | n.id
          from json_each(${`[${entries.join(",")}]`}) j
          join ${debtorNames} n on n.name_key = j.value ->> 2 and n.state = j.value ->> 3
          where n.id <= ${sql.raw(String(MAX_INDEXED_NAME_ID))}`,
      )
      .onConflictDoNothing(),
  );
}
