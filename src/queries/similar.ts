/**
 * Similar-name search (endpoint 8): candidates come from bounded index
 * probes, are scored in the Worker, and only then ranked and paged. One
 * statement, one D1 round trip, whatever the query.
 *
 * Candidates:
 * - the exact UCC key (legal endings, punctuation, case and spacing; words
 *   run together);
 * - keys sharing the query key's first four characters (a one-word name
 *   misspelled past its start);
 * - the query's sound keys (src/domain/soundKeys.ts: the same words in any
 *   order, or one word misspelled, abbreviated, left out, added or
 *   replaced): each a range of debtor_sound_keys, cut at KEY_PROBE_LIMIT
 *   names.
 *
 * Rows read stay under MAX_ROWS_READ at any data size: each candidate id is
 * read once where it is found and once from debtor_names.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import { type DebtorName, debtorNames, debtorSoundKeys } from "../db/schema.ts";
import { keyRange, nameIdOf } from "../db/soundKeys.ts";
import { debtorNameKey } from "../domain/names.ts";
import { SIMILARITY_THRESHOLD, similarity } from "../domain/similarity.ts";
import { MAX_QUERY_KEYS, querySoundKeys } from "../domain/soundKeys.ts";
import type { Db } from "./db.ts";

/** Names read per sound key probed. */
export const KEY_PROBE_LIMIT = 16;
/** Names read from the key-prefix probe (and the exact key without a state). */
export const PREFIX_LIMIT = 10;
const PREFIX_LENGTH = 4;

/** Most candidates a request scores. */
export const MAX_CANDIDATES = 2 * PREFIX_LIMIT + MAX_QUERY_KEYS * KEY_PROBE_LIMIT;
/** Most D1 rows a request reads: each candidate where it is found, then its debtor_names row. */
export const MAX_ROWS_READ = 2 * MAX_CANDIDATES;

export interface SimilarName extends DebtorName {
  score: number;
}

/** The ids of the query's candidates (an id may come more than once). */
function candidateIds(db: Db, q: { name: string; state?: string | undefined }): SQL {
  const key = debtorNameKey(q.name);
  const prefix = key.slice(0, PREFIX_LENGTH);
  const inState = q.state ? eq(debtorNames.state, q.state) : undefined;
  const exact = db
    .select({ id: debtorNames.id })
    .from(debtorNames)
    .where(and(eq(debtorNames.nameKey, key), inState))
    .limit(PREFIX_LIMIT);
  const sharingPrefix = db
    .select({ id: debtorNames.id })
    .from(debtorNames)
    .where(and(inState, sql`${debtorNames.nameKey} >= ${prefix}`, sql`${debtorNames.nameKey} < ${`${prefix}{`}`))
    .limit(PREFIX_LIMIT);
  // For each sound key k, the names of its range, at most KEY_PROBE_LIMIT,
  // gathered into a JSON array by a subquery that sees k.
  const range = keyRange(sql`k.value`, q.state);
  const keyed = sql`select ${nameIdOf(sql`id`)} as id from ${debtorSoundKeys}
    where id >= ${range.from} and id < ${range.to} limit ${KEY_PROBE_LIMIT}`;
  return sql`select id from (${exact})
    union all select id from (${sharingPrefix})
    union all select n.value from json_each(${JSON.stringify(querySoundKeys(q.name))}) k,
      json_each((select json_group_array(id) from (${keyed}))) n`;
}

/** The query's candidates, scored, above the threshold, best first. */
export async function similarNames(db: Db, q: { name: string; state?: string | undefined }): Promise<SimilarName[]> {
  // Every probe keeps to the state already: a state test here would let
  // SQLite walk the state's names instead of looking the candidates up.
  const [rows] = await db.batch([
    db
      .select()
      .from(debtorNames)
      .where(sql`${debtorNames.id} in (${candidateIds(db, q)})`),
  ]);
  return rows
    .map((row) => ({ ...row, score: similarity(q.name, row.name) }))
    .filter((r) => r.score >= SIMILARITY_THRESHOLD)
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.filingCount - a.filingCount ||
        a.name.localeCompare(b.name) ||
        a.state.localeCompare(b.state),
    );
}
