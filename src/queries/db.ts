/**
 * The Drizzle handles queries run on, and how a query reads several shards:
 * - `database(d1)` is a query handle over a D1 binding or session;
 * - a ShardReader runs work on named shards in parallel. Cross-shard merges
 *   (src/queries/fanout.ts) take one; the HTTP layer supplies a reader with
 *   the request's sessions, metering and 503s (src/http/d1.ts), scripts and
 *   tests a plain one (readerOf).
 * Nothing here knows about requests: src/queries imports nothing from
 * src/http (test/node/layers.test.ts).
 */
import { type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { DrizzleD1Database, SQLiteD1Session } from "drizzle-orm/d1";
import type { PreparedQuery } from "drizzle-orm/session";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";

export type Db = DrizzleD1Database;

/**
 * One SQL dialect per isolate, not per request: it memoizes each column's
 * snake_case name. No relational schema either (nothing uses `db.query`):
 * drizzle() rebuilt that from every table on each call. Together about
 * 0.1 ms per shard read, by a profile of the bench's load.
 */
const dialect = new SQLiteAsyncDialect({ casing: "snake_case" });

const frozenFragments = new Map<string, SQL>();

/** How many values `fragment` binds: a statement sent to D1 may bind at most 100. */
export function boundParams(fragment: SQL): number {
  return dialect.sqlToQuery(fragment).params.length;
}

/**
 * A fragment with no bound values, built and rendered to SQL text once per
 * isolate: the same on every request, it costs one chunk to embed instead
 * of a walk of its tree (party lookups were a fifth of the Worker's time).
 */
export function frozen(name: string, build: () => SQL): SQL {
  let fragment = frozenFragments.get(name);
  if (!fragment) {
    const query = dialect.sqlToQuery(build());
    if (query.params.length > 0) throw new Error(`frozen SQL ${name} binds values`);
    fragment = sql.raw(query.sql);
    frozenFragments.set(name, fragment);
  }
  return fragment;
}

/**
 * Drizzle's D1 session, but its batch also takes raw statements with bound
 * values (db.all(sql`...`), which the page statements are): Drizzle's own
 * binds them to a D1 statement it never prepared (drizzle-orm issue 2277).
 * Results are mapped as Drizzle maps them.
 */
class D1Session extends SQLiteD1Session<Record<string, never>, Record<string, never>> {
  private readonly d1: D1Database;

  constructor(d1: D1Database) {
    super(d1, dialect, undefined);
    this.d1 = d1;
  }

  override async batch<T extends BatchItem<"sqlite">[] | readonly BatchItem<"sqlite">[]>(queries: T) {
    type Prepared = PreparedQuery & { stmt?: D1PreparedStatement };
    const prepared = queries.map((q) => (q as unknown as { _prepare(): Prepared })._prepare());
    const statements = prepared.map((p) => {
      const { sql, params } = p.getQuery();
      // A query builder's statement is prepared already; a raw one's is not.
      return (p.stmt ?? this.d1.prepare(sql)).bind(...params);
    });
    const results = await this.d1.batch(statements);
    return results.map((result, i) => prepared[i]?.mapResult(result, true));
  }
}

/** A query handle over `d1`: a D1 binding, or a session of one. */
export function database(d1: D1Database | D1DatabaseSession): Db {
  // Drizzle's D1 driver only calls prepare and batch, which a session has too.
  return new DrizzleD1Database("async", dialect, new D1Session(d1 as D1Database), undefined);
}

/**
 * Runs query work on a layout's shards. A cross-shard merge orders rows of
 * different shards by their index in `shards`, so every reader of one
 * layout lists them in the same order.
 */
export interface ShardReader {
  /** Every shard's binding, the default shard first (src/db/shards.ts, ShardLayout). */
  readonly shards: readonly string[];
  /** Runs `work` on each of `names` in parallel, results in that order. */
  read<T>(names: readonly string[], work: (db: Db, shard: string) => Promise<T>): Promise<T[]>;
}

/** Runs `work` on every shard at once, results in layout order. */
export function onEveryShard<T>(reader: ShardReader, work: (db: Db, shard: string) => Promise<T>): Promise<T[]> {
  return reader.read(reader.shards, work);
}

/**
 * A reader over one handle per shard, in layout order, for code without a
 * request (scripts, tests): no sessions, no metering, errors as thrown.
 */
export function readerOf(databases: ReadonlyMap<string, Db>): ShardReader {
  return {
    shards: [...databases.keys()],
    read: async (names, work) =>
      Promise.all(
        names.map((shard) => {
          const db = databases.get(shard);
          if (!db) throw new Error(`no shard ${shard}`);
          return work(db, shard);
        }),
      ),
  };
}
