/**
 * A state's first load is its backfill: its filings are the state's
 * history, not news, so the change feed does not announce them
 * (docs/monitoring.md). The rule is per state, whatever else its shard
 * holds: a load backfills a state the service holds no filing of, or one
 * whose backfill an earlier load began and did not complete, or one the
 * operator names (`--backfill`).
 *
 * A load decides each state once, when it first meets it (or, on the
 * platform, once for the whole file before writing: src/platform/), and
 * marks the backfill begun (state_backfills, in the state's shard) before
 * writing any of its filings, naming itself (state_backfills.source:
 * `import FILE...`, `load KEY`, `import SOURCE register`). So a load stopped
 * part-way, retried or run again goes on backfilling the state, and the
 * rest of its filings are not announced either. The backfill belongs to
 * the load that began it: only that load (or the same load run again)
 * completes it, when it runs to its end, and from then on the state's
 * loads record changes. Another load of the state that arrives while the
 * backfill is under way is part of it (records no change) and leaves it
 * under way at its end, so the first load's remaining filings are not
 * announced. An operator's `--backfill` load of the state takes the
 * backfill over (for one whose load was given up) and completes it.
 *
 * A state split over several databases (src/db/shards.ts) is decided once,
 * as a whole: it holds a filing if any part does, its backfill is under way
 * if any part's is, and its backfill is marked begun and completed in every
 * part. So a split state's loads are announced, or not, as one database's.
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/database.ts";
import { stateSummaryStatement } from "../db/load.ts";
import { filings, stateBackfills } from "../db/schema.ts";
import { partsOf, type ShardDatabases, shardDb } from "../db/shards.ts";
import { isoSeconds } from "../domain/time.ts";

/** What the operator said of a load: a backfill of every state it loads (`force`: even of one that holds filings). */
export type Declared = { backfill: true; force: boolean } | undefined;

/** A state the operator named as a backfill that already holds filings of an earlier, completed backfill or of loads. */
export class BackfillRefused extends Error {
  override name = "BackfillRefused";
}

/**
 * Whether each of `states` holds a filing in `db`, and its backfill: one
 * statement, one seek each. A query builder's, so every driver (D1's, the
 * local node:sqlite one, whose raw rows are arrays) gives its rows by name.
 */
function factsOf(db: Db, states: string[]) {
  return db
    .select({
      state: sql<string>`s.value`,
      held: sql<number>`exists (select 1 from ${filings} where ${filings.state} = s.value)`,
      began: stateBackfills.beganAt,
      completed: stateBackfills.completedAt,
      by: stateBackfills.source,
    })
    .from(sql`json_each(${JSON.stringify(states)}) s`)
    .leftJoin(stateBackfills, sql`${stateBackfills.state} = s.value`);
}

/** The decisions of one load, state by state. */
export class Backfills {
  private readonly decided: Map<string, boolean>;
  private readonly shards: ShardDatabases;
  private readonly source: string;
  private readonly at: Date;
  private readonly declared: Declared;

  /**
   * `source` and `at` name the load that begins a backfill; `known`:
   * decisions taken earlier by the same load (a Workflow's checkpoint);
   * `declared`: the operator's `--backfill`.
   */
  constructor(
    shards: ShardDatabases,
    source: string,
    at: Date,
    known: Readonly<Record<string, boolean>> = {},
    declared: Declared = undefined,
  ) {
    this.shards = shards;
    this.source = source;
    this.at = at;
    this.declared = declared;
    this.decided = new Map(Object.entries(known));
  }

  /**
   * The states of `states` whose filings this load backfills (records no
   * change for): those met before as decided then, the others decided now
   * and, when they begin a backfill, marked begun before this returns.
   * `empty`: every shard held nothing when the load began (a bulk load),
   * so every state is a backfill and nothing needs reading.
   */
  async backfilling(states: Iterable<string>, { empty = false } = {}): Promise<ReadonlySet<string>> {
    const fresh = [...new Set([...states].map((s) => s.toUpperCase()))].filter((s) => !this.decided.has(s));
    // Every state is decided (or refused) before any is marked, so a refused load marks nothing.
    const begin = new Map<string, string[]>();
    const decided = new Map<string, boolean>();
    // Each state's facts over its parts (one for a whole state): the parts whose backfill is under way,
    // and of those, the parts whose backfill another load began.
    const facts = new Map<string, { held: boolean; underWay: Set<string>; others: Set<string> }>();
    for (const [shard, mine] of this.byShard(fresh)) {
      const read = empty
        ? mine.map((state) => ({
            state,
            held: 0,
            began: null as string | null,
            completed: null as string | null,
            by: null as string | null,
          }))
        : await factsOf(shardDb(this.shards, shard), mine);
      for (const f of read) {
        const known = facts.get(f.state) ?? { held: false, underWay: new Set<string>(), others: new Set<string>() };
        if (f.began !== null && f.completed === null) {
          known.underWay.add(shard);
          if (f.by !== this.source) known.others.add(shard);
        }
        facts.set(f.state, { ...known, held: known.held || Boolean(f.held) });
      }
    }
    for (const [state, { held, underWay, others }] of facts) {
      if (this.declared && held && underWay.size === 0 && !this.declared.force) {
        throw new BackfillRefused(
          `${state} already holds filings, and its loads are announced as changes: --backfill would load its filings without announcing them; add --force to do so anyway`,
        );
      }
      const backfill = underWay.size > 0 || !held || this.declared !== undefined;
      decided.set(state, backfill);
      if (!backfill) continue;
      for (const shard of partsOf(this.shards.layout, state)) {
        // The operator's --backfill takes over a backfill another load began (and left, say).
        const takeOver = this.declared !== undefined && others.has(shard);
        if (!underWay.has(shard) || takeOver) begin.set(shard, [...(begin.get(shard) ?? []), state]);
      }
    }
    for (const [shard, mine] of begin) await this.begin(shardDb(this.shards, shard), mine);
    for (const [state, backfill] of decided) this.decided.set(state, backfill);
    return this.states();
  }

  /** The states this load backfills, of those decided so far. */
  states(): ReadonlySet<string> {
    return new Set([...this.decided].filter(([, backfill]) => backfill).map(([state]) => state));
  }

  /** Every decision so far, to keep in a checkpoint. */
  decisions(): Record<string, boolean> {
    return Object.fromEntries(this.decided);
  }

  /**
   * Completes the backfills this load began, of the states it backfilled:
   * the load ran to its end. From now on their loads record changes. A
   * backfill another load began stays under way, for that load to complete.
   */
  async complete(at: Date): Promise<void> {
    for (const [shard, mine] of this.byShard([...this.states()])) {
      const db = shardDb(this.shards, shard);
      await db.batch([
        db
          .update(stateBackfills)
          .set({ completedAt: isoSeconds(at) })
          .where(ownUnderWay(mine, this.source)),
        // GET /states shows it (state_summaries).
        stateSummaryStatement(db, mine),
      ]);
    }
  }

  private async begin(db: Db, states: string[]) {
    const beganAt = isoSeconds(this.at);
    // Four values a row, within D1's 100 bound parameters.
    for (let i = 0; i < states.length; i += 20) {
      const part = states.slice(i, i + 20);
      await db.batch([
        db
          .insert(stateBackfills)
          .values(part.map((state) => ({ state, beganAt, completedAt: null, source: this.source })))
          .onConflictDoUpdate({
            target: stateBackfills.state,
            set: { beganAt, completedAt: null, source: this.source },
          }),
        // GET /states shows it (state_summaries).
        stateSummaryStatement(db, part),
      ]);
    }
  }

  private byShard(states: string[]): Map<string, string[]> {
    return byShard(this.shards, states);
  }
}

/** `states` by the shards that hold them: a split state under each of its parts. */
function byShard(shards: ShardDatabases, states: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const state of states) {
    for (const shard of partsOf(shards.layout, state)) out.set(shard, [...(out.get(shard) ?? []), state]);
  }
  return out;
}

/** The backfills of `states` under way that the load `source` began. */
const ownUnderWay = (states: string[], source: string) =>
  and(inArray(stateBackfills.state, states), isNull(stateBackfills.completedAt), eq(stateBackfills.source, source));

/**
 * Completes the backfills under way of `states` that the load `source`
 * began: for a load made of steps (an office's register assembled a few
 * hundred filings at a time), each of which goes on with a backfill the
 * first began, once the last step is done.
 */
export async function completeBackfills(
  shards: ShardDatabases,
  states: string[],
  source: string,
  at: Date,
): Promise<void> {
  for (const [shard, mine] of byShard(shards, states)) {
    await shardDb(shards, shard)
      .update(stateBackfills)
      .set({ completedAt: isoSeconds(at) })
      .where(ownUnderWay(mine, source));
  }
}
