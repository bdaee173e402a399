/**
 * Similar-name search (endpoint 8): candidates come from a few bounded
 * index probes, are scored in the Worker, and only then ranked and paged.
 * No request scores every debtor: at most PROBE_LIMIT names per probe, and
 * at most 2 + MAX_SOUNDS probes, all in one D1 batch.
 *
 * Probes:
 * - the exact UCC key (legal endings, punctuation, case and spacing);
 * - keys sharing the query key's first four characters (words run together,
 *   endings typed differently);
 * - names with a word that sounds like a word of the query (typos and any
 *   word order), longest query words first.
 */
import { and, eq, getTableColumns, gte, lt, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type DebtorName, debtorNameSounds, debtorNames } from "../db/schema.ts";
import { debtorNameKey, significantWords, wordSound } from "../domain/names.ts";
import { SIMILARITY_THRESHOLD, similarity } from "../domain/similarity.ts";
import type { Db } from "./db.ts";

export const PROBE_LIMIT = 50;
export const MAX_SOUNDS = 6;
const PREFIX_LENGTH = 4;

export interface SimilarName extends DebtorName {
  score: number;
}

/** The query's candidates, scored, above the threshold, best first. */
export async function similarNames(db: Db, q: { name: string; state?: string | undefined }): Promise<SimilarName[]> {
  const key = debtorNameKey(q.name);
  const prefix = key.slice(0, PREFIX_LENGTH);
  const sounds = [...new Set(significantWords(q.name).map(wordSound))]
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_SOUNDS);
  const inState = (column: typeof debtorNames.state | typeof debtorNameSounds.state): SQL | undefined =>
    q.state ? eq(column, q.state) : undefined;

  const probes: BatchItem<"sqlite">[] = [
    db
      .select()
      .from(debtorNames)
      .where(and(eq(debtorNames.nameKey, key), inState(debtorNames.state)))
      .limit(PROBE_LIMIT),
    db
      .select()
      .from(debtorNames)
      .where(and(inState(debtorNames.state), gte(debtorNames.nameKey, prefix), lt(debtorNames.nameKey, `${prefix}{`)))
      .limit(PROBE_LIMIT),
    ...sounds.map((sound) =>
      db
        .select(getTableColumns(debtorNames))
        .from(debtorNameSounds)
        .innerJoin(
          debtorNames,
          and(eq(debtorNames.nameKey, debtorNameSounds.nameKey), eq(debtorNames.state, debtorNameSounds.state)),
        )
        .where(and(eq(debtorNameSounds.sound, sound), inState(debtorNameSounds.state)))
        .limit(PROBE_LIMIT),
    ),
  ];
  const results = (await db.batch(probes as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as DebtorName[][];

  const byId = new Map<number, DebtorName>();
  for (const rows of results) for (const row of rows) byId.set(row.id, row);
  return [...byId.values()]
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
