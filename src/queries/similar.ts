/**
 * Similar-name search (/debtors/search-similar): candidates come from bounded index
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
 *   replaced): each a range of debtor_sound_keys, cut at BROAD_KEY_LIMIT or
 *   NARROW_KEY_LIMIT names.
 *
 * Rows read stay under MAX_ROWS_READ at any data size.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import { type DebtorName, debtorNames, debtorSoundKeys } from "../db/schema.ts";
import { keyRange, nameIdOf } from "../db/soundKeys.ts";
import { debtorNameKey } from "../domain/names.ts";
import { SIMILARITY_THRESHOLD, similarity } from "../domain/similarity.ts";
import { MAX_KEY_WORDS, maxQueryKeys, querySoundKeys } from "../domain/soundKeys.ts";
import type { Db } from "./db.ts";

/** Names read per broad sound key (one word and a letter or two of another: many names). */
const BROAD_KEY_LIMIT = 24;
/** Names read per narrow sound key (two words or more). */
const NARROW_KEY_LIMIT = 12;
/** Names read from the key-prefix probe (and the exact key without a state). */
const PREFIX_LIMIT = 10;
const PREFIX_LENGTH = 4;

/** Most candidates a request scores, whatever the number of words in the query. */
export const MAX_CANDIDATES =
  2 * PREFIX_LIMIT +
  Math.max(
    ...Array.from({ length: MAX_KEY_WORDS }, (_, i) => {
      const keys = maxQueryKeys(i + 1);
      return keys.broad * BROAD_KEY_LIMIT + keys.narrow * NARROW_KEY_LIMIT;
    }),
  );
/**
 * Most D1 rows a request reads, as D1 counts them: each candidate where a
 * probe finds it (a probe that ends early reads one row past its range, but
 * then fewer than its limit), then once more in the set of distinct
 * candidates and once in debtor_names.
 */
export const MAX_ROWS_READ = 3 * MAX_CANDIDATES;

export interface SimilarName extends DebtorName {
  score: number;
}

/** D1 allows at most five terms in one compound SELECT. */
const MAX_COMPOUND = 5;

/** The rows of every arm (each a bounded SELECT of `id`), as nested compound SELECTs of five terms at most. */
function unionAll(arms: SQL[]): SQL {
  let terms = arms;
  if (arms.length > MAX_COMPOUND) {
    const size = Math.ceil(arms.length / MAX_COMPOUND);
    terms = [];
    for (let i = 0; i < arms.length; i += size) terms.push(unionAll(arms.slice(i, i + size)));
  }
  return sql.join(
    terms.map((t) => sql`select id from (${t})`),
    sql` union all `,
  );
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
  // Each sound key: the names of its range, at most `limit`.
  const keyed = (k: number, limit: number) => {
    const range = keyRange(sql`${k}`, q.state);
    return sql`select ${nameIdOf(sql`id`)} as id from ${debtorSoundKeys}
      where id >= ${range.from} and id < ${range.to} limit ${sql.raw(String(limit))}`;
  };
  const keys = querySoundKeys(q.name);
  return unionAll([
    sql`${exact}`,
    sql`${sharingPrefix}`,
    ...keys.broad.map((k) => keyed(k, BROAD_KEY_LIMIT)),
    ...keys.narrow.map((k) => keyed(k, NARROW_KEY_LIMIT)),
  ]);
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
  return rank(
    rows.map((row) => ({ ...row, score: similarity(q.name, row.name) })).filter((r) => r.score >= SIMILARITY_THRESHOLD),
  );
}

/**
 * Each debtor (match key) once, in its state with the most filings, before
 * any debtor a second time in another state; within each round, best score
 * first, then more filings, then by name and state. With a state, every
 * debtor comes once and this is plain score order; without one, a page
 * shows five different debtors rather than one debtor in five states.
 */
export function rank(names: SimilarName[]): SimilarName[] {
  const byFilings = [...names].sort((a, b) => b.filingCount - a.filingCount || a.state.localeCompare(b.state));
  const seen = new Map<string, number>();
  const rounds = byFilings.map((name) => {
    const round = seen.get(name.nameKey) ?? 0;
    seen.set(name.nameKey, round + 1);
    return { name, round };
  });
  return rounds
    .sort(
      ({ round: ra, name: a }, { round: rb, name: b }) =>
        ra - rb ||
        b.score - a.score ||
        b.filingCount - a.filingCount ||
        a.name.localeCompare(b.name) ||
        a.state.localeCompare(b.state),
    )
    .map(({ name }) => name);
}
