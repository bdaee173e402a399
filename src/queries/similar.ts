/**
 * Similar-name search (/debtors/search-similar): candidates come from bounded index
 * probes, are scored in the Worker, and only then ranked and paged. One
 * statement per database, one D1 round trip, whatever the query.
 *
 * Candidates:
 * - the exact UCC key (legal endings, punctuation, case and spacing; words
 *   run together), then the keys it begins (a name's leading words);
 * - keys sharing the query key's first four characters (a one-word name
 *   misspelled past its start);
 * - the query's sound keys (src/domain/soundKeys.ts: the same words in any
 *   order, or one word misspelled, abbreviated, left out, added or
 *   replaced): each a range of debtor_sound_keys, cut at its cap of names
 *   (CAPS: broad or narrow);
 * - for a one-word query, the individuals whose first and last names run
 *   together, either way round, are the word (src/domain/joinedNames.ts):
 *   a range of person keys per reading, cut at its cap (CAPS).
 *
 * Each probe's cap keeps the first names in an order of its own, read from
 * an index: over several shards, each shard sends its own first names of
 * every probe and the Worker keeps the first of all (candidatesOf), so the
 * candidates, and so the answer and its count, are one database's, where
 * each state's names were numbered in the same order: a state split in
 * parts numbers each part's own, so a full probe may keep other names
 * (docs/fan-out.md). Rows read stay under MAX_ROWS_READ per database
 * (shard) at any data size.
 */
import { and, eq, getTableColumns, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { MAX_COMPOUND } from "../db/database.ts";
import { type DebtorName, debtorNames, debtorSoundKeys } from "../db/schema.ts";
import { keyRange, nameIdOf, placeInKeyOf } from "../db/soundKeys.ts";
import { joinedNameRanges, MAX_JOINED_READINGS } from "../domain/joinedNames.ts";
import { debtorNameKey } from "../domain/names.ts";
import { SIMILARITY_THRESHOLD, similarityTo } from "../domain/similarity.ts";
import { MAX_KEY_WORDS, maxQueryKeys, querySoundKeys } from "../domain/soundKeys.ts";
import { type Db, decoded, type Holes, rendered, template } from "./db.ts";

/**
 * Names each probe keeps, the first in its order (see Probe):
 * - `broad`: per broad sound key (one word and a letter or two of another:
 *   many names); `narrow`: per narrow one (two words or more);
 * - `prefix`: from each key-prefix probe (the query's key, and its first
 *   four characters);
 * - `joined`: per reading of a one-word query as a first and last name (a
 *   person-key range): the name without a middle name sorts first, so the
 *   same name in several states, or with middle initials, fills the cap.
 * With a state, a probe reads that state's names. Without one it reads
 * every state's, on every shard, and the shard that holds the most states
 * fills the crowded probes (the default shard: forty-odd states), where a
 * cap kept first by state is mostly the same debtors in the first states
 * of the alphabet. There the broad keys (up to ten for a two-word query)
 * and the prefixes keep fewer names, which holds a page within 100 rows
 * read on that shard (issue 34), and the narrow keys, which carry the
 * misspelled names of two words or more, keep as many; caps that are the
 * same whatever the layout keep the answer one database's.
 */
const CAPS = {
  state: { broad: 24, narrow: 12, prefix: 10, joined: 10 },
  across: { broad: 5, narrow: 12, prefix: 5, joined: 4 },
} as const;
const PREFIX_LENGTH = 4;

type Caps = (typeof CAPS)[keyof typeof CAPS];

/** Most candidates a request with `caps` scores, whatever the number of words in the query (only a one-word query has joined-name readings). */
function candidatesWith(caps: Caps): number {
  return (
    2 * caps.prefix +
    Math.max(
      ...Array.from({ length: MAX_KEY_WORDS }, (_, i) => {
        const keys = maxQueryKeys(i + 1);
        const joined = i === 0 ? MAX_JOINED_READINGS * caps.joined : 0;
        return keys.broad * caps.broad + keys.narrow * caps.narrow + joined;
      }),
    )
  );
}

/** Most candidates a request scores (with a state: the larger caps). */
export const MAX_CANDIDATES = candidatesWith(CAPS.state);
/**
 * Most D1 rows a request reads from one database (or shard), as D1 counts
 * them: each candidate where a probe finds it (a probe that ends early
 * reads one row past its range, but then fewer than its limit), then its
 * debtor_names row, once per probe that found it. Without a state, each
 * shard read is held to MAX_ROWS_READ_ACROSS.
 */
export const MAX_ROWS_READ = 2 * MAX_CANDIDATES;
export const MAX_ROWS_READ_ACROSS = 2 * candidatesWith(CAPS.across);

export interface SimilarName extends DebtorName {
  score: number;
}

/**
 * One candidate probe: at most `limit` names, the first in its order. A
 * "name" probe reads debtor_names in (name key, state) order: the keys
 * from `from` up to `to`, or the key `from` alone (`to` null); a "sound"
 * probe reads a sound key's range in (state, name id) order (placeInKeyOf).
 * With a state, each reads that state's names.
 */
export type Probe = { limit: number } & (
  | { kind: "name"; from: string; to: string | null }
  | { kind: "sound"; key: number }
);

/**
 * What a probe found in one database: the probe (its index), the row's
 * place in a sound probe's order (0 in a name probe) and the debtor_names
 * row, null for a sound key whose debtor is gone (it still took a place).
 */
export interface Hit {
  probe: number;
  place: number;
  name: DebtorName | null;
}

/** The rows of every arm (each a bounded SELECT of probe, nid, place), as nested compound SELECTs of five terms at most. */
function unionAll(arms: SQL[]): SQL {
  let terms = arms;
  if (arms.length > MAX_COMPOUND) {
    const size = Math.ceil(arms.length / MAX_COMPOUND);
    terms = [];
    for (let i = 0; i < arms.length; i += size) terms.push(unionAll(arms.slice(i, i + size)));
  }
  return sql.join(
    terms.map((t) => sql`select probe, nid, place from (${t})`),
    sql` union all `,
  );
}

/** The name probe of the keys that start with `prefix` (keys hold only [a-z0-9] and spaces; "{" follows "z"): one index range. */
const startsWith = (prefix: string, limit: number): Probe => ({ kind: "name", limit, from: prefix, to: `${prefix}{` });

/** The query's candidate probes, the same on every shard. */
function probesOf(q: { name: string; state?: string | undefined }): Probe[] {
  const key = debtorNameKey(q.name);
  const prefix = key.slice(0, PREFIX_LENGTH);
  const keys = querySoundKeys(q.name);
  const caps = q.state ? CAPS.state : CAPS.across;
  return [
    // The exact key first (in key order), then the keys it begins: an
    // organization named by its leading words ("Silvercreek", "Silver
    // Creek" for Silver Creek Industries LLC).
    key === "" ? { kind: "name", limit: caps.prefix, from: key, to: null } : startsWith(key, caps.prefix),
    startsWith(prefix, caps.prefix),
    ...keys.broad.map((key) => ({ kind: "sound" as const, limit: caps.broad, key })),
    ...keys.narrow.map((key) => ({ kind: "sound" as const, limit: caps.narrow, key })),
    ...joinedNameRanges(q.name).map((range): Probe => ({ kind: "name", limit: caps.joined, ...range })),
  ];
}

/** A probe as the statement's form holds it: its kind and limit, and whether a name probe is one key (its values are bound). */
type ProbeForm = { sound: boolean; limit: number; exact: boolean };

/** What probeStatement binds: the name probes' ranges and the sound probes' keys, each in probe order. */
type ProbeValues = { state: string; from: string[]; to: string[]; keys: number[] };

/**
 * A name probe's debtor_names ids, the first `limit` in (name key, state)
 * order, read in that order from an index. The limit is written in, not
 * bound: a one-word query's many probes stay within 100 parameters.
 */
function nameProbe(p: ProbeForm, state: boolean, v: { state: SQLWrapper; from: SQLWrapper; to: SQLWrapper }): SQL {
  const key = p.exact
    ? eq(debtorNames.nameKey, v.from)
    : and(sql`${debtorNames.nameKey} >= ${v.from}`, sql`${debtorNames.nameKey} < ${v.to}`);
  return sql`select ${debtorNames.id} from ${debtorNames} where ${and(state ? eq(debtorNames.state, v.state) : undefined, key)}
      order by ${debtorNames.nameKey}, ${debtorNames.state} limit ${sql.raw(String(p.limit))}`;
}

/** A sound probe's row ids, the first `limit` of its key's range (in the state), as nameProbe. */
function soundProbe(p: ProbeForm, state: string | null, key: SQLWrapper): SQL {
  const range = keyRange(sql`${key}`, state ?? undefined);
  return sql`select id from ${debtorSoundKeys} where id >= ${range.from} and id < ${range.to} order by id limit ${sql.raw(String(p.limit))}`;
}

/** debtor_names' columns, by key: a candidate's row as probeStatement selects it. */
const NAME_COLUMNS: [string, SQLiteColumn][] = Object.entries(getTableColumns(debtorNames));

/**
 * Every probe's rows (probe, nid: the debtor_names id, place: see Hit), the
 * first `limit` of each in its order, read in that order from an index,
 * each joined to its debtor_names row (its columns named by their keys). A
 * template (src/queries/db.ts): rendered once per isolate for each list of
 * probe forms and state, so a request binds its values to rendered text.
 */
const probesTemplate = template(
  "similarProbes",
  (f: { probes: ProbeForm[]; state: string | null }, v: Holes<ProbeValues>) => {
    let names = 0;
    let sounds = 0;
    const arms = f.probes.map((p, i) => {
      const tag = sql.raw(String(i));
      if (!p.sound) {
        const j = names++;
        const rows = nameProbe(p, f.state !== null, {
          state: v.state,
          from: v.from[j] as SQLWrapper,
          to: v.to[j] as SQLWrapper,
        });
        return sql`select ${tag} as probe, id as nid, 0 as place from (${rows})`;
      }
      const rows = soundProbe(p, f.state, v.keys[sounds++] as SQLWrapper);
      return sql`select ${tag} as probe, ${nameIdOf(sql`id`)} as nid, ${placeInKeyOf(sql`id`)} as place from (${rows})`;
    });
    const columns = sql.join(
      NAME_COLUMNS.map(([key, column]) => sql`${column} as ${sql.identifier(key)}`),
      sql`, `,
    );
    return sql`select p.probe as probe, p.place as place, ${columns} from (${unionAll(arms)}) p left join ${debtorNames} on ${debtorNames.id} = p.nid`;
  },
);

/**
 * A similar-name query as one request asks it: its candidate probes, built
 * once for every shard it reads and for ranking, and its scorer, which
 * reads the query's words once for every candidate.
 */
export interface SimilarQuery {
  state: string | undefined;
  probes: Probe[];
  score: (candidate: string) => number;
}

export function similarQuery(q: { name: string; state?: string | undefined }): SimilarQuery {
  return { state: q.state, probes: probesOf(q), score: similarityTo(q.name) };
}

/**
 * The statement probeNames sends (probesTemplate), with the request's
 * values bound once: every shard gets the same text and values.
 */
export function probeStatement(q: SimilarQuery): SQL {
  const values: ProbeValues = { state: q.state ?? "", from: [], to: [], keys: [] };
  const probes = q.probes.map((probe): ProbeForm => {
    if (probe.kind === "sound") {
      values.keys.push(probe.key);
      return { sound: true, limit: probe.limit, exact: false };
    }
    values.from.push(probe.from);
    values.to.push(probe.to ?? "");
    return { sound: false, limit: probe.limit, exact: probe.to === null };
  });
  return rendered(probesTemplate({ probes, state: q.state ?? null }, values));
}

/**
 * Every probe's names in one database (a shard, or the state's shard): one
 * statement (probeStatement), one round trip. Every probe keeps to the
 * state already: a state test here would let SQLite walk the state's names
 * instead of looking the candidates up.
 */
export async function probeNames(db: Db, statement: SQL): Promise<Hit[]> {
  const [rows] = await db.batch([db.all<Record<string, unknown>>(statement)]);
  return rows.map((r) => ({
    probe: Number(r.probe),
    place: Number(r.place),
    name: r.id === null ? null : decoded<DebtorName>(NAME_COLUMNS, (key) => r[key]),
  }));
}

/** Most candidates the query's probes can find in one database: at most MAX_CANDIDATES. */
export function candidateLimit(q: { name: string; state?: string | undefined }): number {
  return probesOf(q).reduce((n, probe) => n + probe.limit, 0);
}

/** Order of a name probe's rows, as the index reads them (keys hold only [a-z0-9], states two capitals). */
function byNameKey(a: DebtorName | null, b: DebtorName | null): number {
  const [x, y] = [a ? `${a.nameKey} ${a.state}` : "", b ? `${b.nameKey} ${b.state}` : ""];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A candidate's identity: its match key and state (one debtor_names row in each database that holds it). */
const keyOf = (name: DebtorName) => `${name.nameKey} ${name.state}`;

/**
 * The candidates of a query over several parts (shards): each candidate's
 * row in each part that sent it, and, for a state split over several
 * databases (src/db/shards.ts), the candidates a part of its state may hold
 * without having sent them.
 */
export interface Candidates {
  rows: Map<string, Map<number, DebtorName>>;
  /** Per part: candidates of its state that every probe finding them filled its cap in this part, so may have cut. */
  unsent: Map<number, DebtorName[]>;
}

/**
 * The candidates one database holding every part's data finds: each
 * probe's first `limit` names of all parts (one part per shard), in the
 * probe's order. Each part holds its own first `limit`, and a state lives
 * in one part, so the union holds the first `limit` of all. A state split
 * over several databases (`partsOf`: the parts that hold a state) has a
 * name in each part that holds its filings: such a name takes one place of
 * a probe's `limit`, and is one candidate (combined). A part that did not
 * send a candidate of its state holds none of it when a probe that found
 * it ended below its cap there; when every such probe was full there, the
 * part may hold it beyond, and its row is asked for (unsent).
 */
export function candidatesOf(
  probes: Probe[],
  parts: Hit[][],
  partsOf: (state: string) => readonly number[] = () => [],
): Candidates {
  const found = probes.map(() => [] as { hit: Hit; part: number }[]);
  parts.forEach((hits, part) => {
    for (const hit of hits) found[hit.probe]?.push({ hit, part });
  });
  // Each kept name's row in each part that sent it, and the probes that found it.
  const rows = new Map<string, Map<number, DebtorName>>();
  const finders = new Map<string, number[]>();
  found.forEach((hits, i) => {
    const probe = probes[i];
    if (!probe) return;
    hits.sort((a, b) =>
      probe.kind === "name" ? byNameKey(a.hit.name, b.hit.name) : a.hit.place - b.hit.place || a.part - b.part,
    );
    const places = new Set<string>();
    for (const { hit, part } of hits) {
      // A sound key left behind by a name that is gone takes a place, as in one database.
      const key = hit.name ? keyOf(hit.name) : `gone ${part} ${hit.place}`;
      if (!places.has(key) && places.size === probe.limit) break;
      places.add(key);
      if (!hit.name) continue;
      const sent = rows.get(key) ?? new Map<number, DebtorName>();
      sent.set(part, hit.name);
      rows.set(key, sent);
      finders.set(key, [...(finders.get(key) ?? []), i]);
    }
  });
  const full = (part: number, probe: number) =>
    (parts[part] ?? []).filter((hit) => hit.probe === probe).length >= (probes[probe]?.limit ?? 0);
  const unsent = new Map<number, DebtorName[]>();
  for (const [key, sent] of rows) {
    const [name] = sent.values();
    if (!name) continue;
    for (const part of partsOf(name.state)) {
      if (sent.has(part) || !(finders.get(key) ?? []).every((probe) => full(part, probe))) continue;
      unsent.set(part, [...(unsent.get(part) ?? []), name]);
    }
  }
  return { rows, unsent };
}

/** One name's rows in the parts of a split state as one: filings added, as most recently filed. */
function combined(rows: DebtorName[]): DebtorName {
  const [first, ...rest] = rows;
  if (!first) throw new Error("a name without a row");
  return rest.reduce(
    (a, b) => ({
      ...(b.lastFiledAt > a.lastFiledAt ? b : a),
      filingCount: a.filingCount + b.filingCount,
    }),
    first,
  );
}

/**
 * The candidates scored, above the threshold, best first: each one's rows
 * in every part as one, with `more` (rows of unsent candidates, read from
 * their parts).
 */
export function rankedOf(q: SimilarQuery, candidates: Candidates, more: DebtorName[][] = []): SimilarName[] {
  const rows = new Map([...candidates.rows].map(([key, sent]) => [key, [...sent.values()]]));
  for (const row of more.flat()) rows.get(keyOf(row))?.push(row);
  return rank(
    [...rows.values()]
      .map((sent) => combined(sent))
      .map((row) => ({ ...row, score: q.score(row.name) }))
      .filter((r) => r.score >= SIMILARITY_THRESHOLD),
  );
}

/** The candidates of every part (each state in one), scored, above the threshold, best first. */
function similarOf(q: SimilarQuery, parts: Hit[][]): SimilarName[] {
  return rankedOf(q, candidatesOf(q.probes, parts));
}

/**
 * The debtor_names rows of `names` (by match key and state) in one
 * database: a split state's candidates a part did not send. One lookup of
 * the unique key each, in one round trip.
 */
export async function namesByKey(db: Db, names: DebtorName[]): Promise<DebtorName[]> {
  const keys = JSON.stringify(names.map((n) => [n.nameKey, n.state]));
  // CROSS JOIN keeps SQLite's order: each key, then its row by the unique index. A query
  // builder's, so every driver (D1's, the local node:sqlite one) gives its rows by name.
  const [rows] = await db.batch([
    db
      .select(getTableColumns(debtorNames))
      .from(sql`json_each(${keys}) k`)
      .crossJoin(debtorNames)
      .where(and(eq(debtorNames.nameKey, sql`k.value ->> 0`), eq(debtorNames.state, sql`k.value ->> 1`))),
  ]);
  return rows;
}

/** The query's candidates in one database, scored, above the threshold, best first. */
export async function similarNames(db: Db, q: { name: string; state?: string | undefined }): Promise<SimilarName[]> {
  const query = similarQuery(q);
  return similarOf(query, [await probeNames(db, probeStatement(query))]);
}

/**
 * Each debtor (match key) once, in its state with the most filings, before
 * any debtor a second time in another state; within each round, best score
 * first, then more filings, then by name and state. With a state, every
 * debtor comes once and this is plain score order; without one, a page
 * shows five different debtors rather than one debtor in five states.
 */
function rank(names: SimilarName[]): SimilarName[] {
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
