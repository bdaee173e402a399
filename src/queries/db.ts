/**
 * The Drizzle handles queries run on, how their statements are made, and
 * how a query reads several shards:
 * - `database(d1)` is a query handle over a D1 binding or session;
 * - statements are written with Drizzle (`query`, without a database) and
 *   rendered to SQL text once per isolate: `frozen` for text with no
 *   values, `template` for text of one shape with a request's values bound
 *   into it, `rendered` for one statement sent to several shards; the
 *   isolate's dialect joins a statement of rendered parts without walking
 *   it, and is built on Drizzle's public API only (no private fields), so a
 *   Drizzle upgrade that changes rendering shows in the tests that compare
 *   the two (test/node/statement-templates.test.ts);
 * - a ShardReader runs work on named shards in parallel. Cross-shard merges
 *   (src/queries/fanout.ts) take one; the HTTP layer supplies a reader with
 *   the request's sessions, metering and 503s (src/http/d1.ts), scripts and
 *   tests a plain one (readerOf).
 * Nothing here knows about requests: src/queries imports nothing from
 * src/http (test/node/layers.test.ts).
 */
import {
  type BuildQueryConfig,
  is,
  Placeholder,
  type QueryWithTypings,
  SQL,
  type SQLChunk,
  type SQLWrapper,
  StringChunk,
  sql,
} from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { CasingCache } from "drizzle-orm/casing";
import { DrizzleD1Database, SQLiteD1Session } from "drizzle-orm/d1";
import {
  QueryBuilder,
  SQLiteAsyncDialect,
  type SQLiteColumn,
  SQLiteDeleteBase,
  SQLiteInsertBase,
  SQLiteSelectBase,
  SQLiteUpdateBase,
} from "drizzle-orm/sqlite-core";
import { SQLiteRaw } from "drizzle-orm/sqlite-core/query-builders/raw";

export type Db = DrizzleD1Database;

/**
 * A statement or fragment already rendered: its SQL text and the values its
 * `?`s bind, in order. Sending it or embedding it in another (the isolate's
 * dialect, below) reads these two fields; Drizzle walks its chunks only
 * where a query builder embeds it.
 */
export class Rendered extends SQL {
  readonly text: string;
  readonly values: readonly unknown[];
  /** The text split at its `?`s, where a template has it already. */
  readonly pieces: readonly StringChunk[] | undefined;
  /** Drizzle's chunks, made only if a query builder walks them (queryChunks, below). */
  chunks: SQLChunk[] | undefined;
  constructor(text: string, values: readonly unknown[], pieces?: readonly StringChunk[]) {
    // No chunks yet: Drizzle's constructor asks each whether it is a table, which cost more than
    // the rest of a page's statements (sending a statement reads its text and values alone).
    super([]);
    this.text = text;
    this.values = values;
    this.pieces = pieces;
  }

  /** Refused: its values are bound into text already rendered, which the dialect sends as it is. */
  override inlineParams(): this {
    throw new Error("a rendered statement binds its values: build it again to write them into its text");
  }
}

/** A rendered statement's chunks as Drizzle walks them: its text's pieces, each value a parameter between two. */
function chunksOf({ text, values, pieces }: Rendered): SQLChunk[] {
  const split = pieces ?? text.split("?").map((piece) => new StringChunk(piece));
  if (split.length !== values.length + 1) throw new Error("rendered SQL has a ? that binds nothing");
  const chunks: SQLChunk[] = [split[0] as StringChunk];
  for (let i = 0; i < values.length; i++) chunks.push(sql.param(values[i]), split[i + 1] as StringChunk);
  return chunks;
}

// SQL's constructor assigns queryChunks (an empty list here): the accessor keeps them to be made when read.
Object.defineProperty(Rendered.prototype, "queryChunks", {
  get(this: Rendered) {
    this.chunks ??= chunksOf(this);
    return this.chunks;
  },
  set() {},
});

/** Enough of a rendering for a fragment to say how it writes one value (names, columns and strings play no part). */
const PROBE: BuildQueryConfig = {
  casing: new CasingCache(),
  escapeName: (name) => name,
  escapeParam: () => "?",
  escapeString: (text) => text,
};

/**
 * Whether Drizzle writes `fragment`'s values into its text (`.inlineParams()`)
 * rather than binding them: asked of the fragment itself, by rendering one
 * value with it (no walk of its chunks).
 */
const inlines = (fragment: SQL) => fragment.buildQueryFromSourceParams([0], PROBE).params.length === 0;

/**
 * The text and values of a statement made only of SQL text, rendered parts
 * and plain values (what pages, counts and ranges are made of), joined
 * without Drizzle's walk, which costs about a tenth of a lookup's CPU.
 * Undefined for anything else (columns, tables, placeholders, encoded
 * values) and for a statement that writes its values into its text, which
 * Drizzle renders. The fragments inside it are not asked (a third of a
 * microsecond each, and a debtor search's page has fourteen): src/ writes no values
 * into text with `.inlineParams()` (test/node/layers.test.ts; sql.raw text
 * is joined as it is), a rendered part refuses it, and what Drizzle's own
 * helpers build is compared with Drizzle's rendering
 * (test/node/statement-templates.test.ts).
 */
function joined(statement: SQL): { text: string; values: unknown[] } | undefined {
  if (inlines(statement)) return undefined;
  let text = "";
  const values: unknown[] = [];
  const walk = (chunks: readonly unknown[]): boolean => {
    for (const chunk of chunks) {
      if (chunk instanceof Rendered) {
        text += chunk.text;
        values.push(...chunk.values);
      } else if (chunk instanceof StringChunk) {
        text += chunk.value.join("");
      } else if (chunk instanceof SQL) {
        if (!walk(chunk.queryChunks)) return false;
      } else if (typeof chunk === "number" || typeof chunk === "string") {
        text += "?";
        values.push(chunk);
      } else {
        return false;
      }
    }
    return true;
  };
  return walk(statement.queryChunks) ? { text, values } : undefined;
}

/**
 * Drizzle's SQLite dialect, except that a statement of rendered parts is
 * joined (above) rather than walked: the one way the isolate's statements
 * become text, whether a template renders them, D1Session sends them or a
 * query builder embeds them. What it joins equals Drizzle's own rendering
 * (test/node/statement-templates.test.ts); the rest is Drizzle's.
 */
class Dialect extends SQLiteAsyncDialect {
  override sqlToQuery(statement: SQL, invokeSource?: "indexes"): QueryWithTypings {
    if (statement instanceof Rendered) return { sql: statement.text, params: [...statement.values] };
    const done = invokeSource === undefined ? joined(statement) : undefined;
    return done ? { sql: done.text, params: done.values } : super.sqlToQuery(statement, invokeSource);
  }
}

/**
 * One SQL dialect per isolate, not per request: it memoizes each column's
 * snake_case name. No relational schema either (nothing uses `db.query`):
 * drizzle() rebuilt that from every table on each call. Together about
 * 0.1 ms per shard read, by a profile of the bench's load.
 */
const dialect = new Dialect({ casing: "snake_case" });

/** Drizzle's query builder without a database, for fragments and templates (`query.select(...)...getSQL()`). */
export const query = new QueryBuilder(dialect);

/** A fragment's SQL text and values, as the isolate's dialect renders it. */
export function textOf(fragment: SQL): { text: string; values: readonly unknown[] } {
  if (fragment instanceof Rendered) return fragment;
  const rendered = dialect.sqlToQuery(fragment);
  return { text: rendered.sql, values: rendered.params };
}

const frozenFragments = new Map<string, SQL>();

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

/** A row of `columns` (key and column) from its stored values, each read back as Drizzle reads its column. */
export function decoded<R>(
  columns: readonly (readonly [string, SQLiteColumn])[],
  value: (key: string, i: number) => unknown,
): R {
  const row: Record<string, unknown> = {};
  columns.forEach(([key, column], i) => {
    const stored = value(key, i);
    row[key] = stored === null || stored === undefined ? null : column.mapFromDriverValue(stored);
  });
  return row as R;
}

/** A value bound to a statement, as the driver takes it (a column's stored form: mapToDriverValue). */
type Bound = string | number | null;

/**
 * Where a request's values go in a template: a placeholder per value, an
 * array of them per list. A builder that embeds another passes it its own
 * holes, or any SQL.
 */
export type Holes<V> = { readonly [K in keyof V]: V[K] extends readonly Bound[] ? readonly SQLWrapper[] : SQLWrapper };

/** What decides a template's form: JSON, small (it keys the isolate's cache of rendered text). */
type Shape = string | number | boolean | null | undefined | readonly Shape[] | { readonly [key: string]: Shape };

/** SQL text in pieces around its `?`s, and what each `?` binds: a request's value (its key and list index) or a constant. */
interface Pieces {
  text: string;
  pieces: StringChunk[];
  slots: ({ key: string; index: number } | { value: unknown })[];
}

/** A fragment rendered with the isolate's dialect, split at its bound values (placeholders among them). */
function render(name: string, fragment: SQL): Pieces {
  const { text, values } = textOf(fragment);
  const pieces = text.split("?");
  // Every `?` is a bound value: names, numbers and text are bound, never written in with a `?`.
  if (pieces.length !== values.length + 1) throw new Error(`SQL ${name} has a ? that binds nothing`);
  return {
    text,
    pieces: pieces.map((piece) => new StringChunk(piece)),
    slots: values.map((p) => {
      if (!is(p, Placeholder)) return { value: p };
      const [key = "", index] = p.name.split("#");
      return { key, index: index === undefined ? -1 : Number(index) };
    }),
  };
}

/** A rendered fragment with `values` in its slots. */
function flat({ text, pieces }: Pieces, values: readonly unknown[]): Rendered {
  return new Rendered(text, values, pieces);
}

/**
 * `statement` rendered now, once, for sending to several databases (each
 * shard of a request spanning states): each sends its text and values as
 * they are.
 */
export function rendered(statement: SQL): Rendered {
  if (statement instanceof Rendered) return statement;
  const { text, values } = textOf(statement);
  for (const value of values) {
    if (is(value, Placeholder)) throw new Error(`a placeholder (${value.name}) in a rendered statement`);
  }
  return new Rendered(text, values);
}

/** A template's holes for `values`: a placeholder named for each value, and for each list one per item ("key#i"). */
function holesOf<V extends Record<string, Bound | readonly Bound[]>>(values: V): Holes<V> {
  const holes: Record<string, SQLWrapper | readonly SQLWrapper[]> = {};
  for (const [key, value] of Object.entries(values)) {
    holes[key] = Array.isArray(value) ? value.map((_, i) => sql.placeholder(`${key}#${i}`)) : sql.placeholder(key);
  }
  return holes as Holes<V>;
}

/** Most shapes a template keeps rendered: shapes are structural (a number of values, a choice of index). */
const MAX_SHAPES = 500;

/**
 * A fragment whose SQL text is rendered once per isolate for each `shape`
 * and gets each request's `values` bound in order: Drizzle builds and walks
 * its tree on a request of a new shape only. `build` is the fragment's
 * query, written with Drizzle as any other, from the shape (what decides
 * the statement's form: which filters, how many values) and holes where
 * the values go; it runs with nothing else in reach (define it at module
 * level), so a value cannot leak into the text another request reuses.
 * Values are bound as given: a column's stored form (mapToDriverValue),
 * as a hole compares with the column without encoding.
 */
export function template<S extends Shape, V extends Record<string, Bound | readonly Bound[]>>(
  name: string,
  build: (shape: S, holes: Holes<V>) => SQL,
): (shape: S, values: V) => SQL;
/** A template of several fragments (a list's index ranges), rendered and bound alike. */
export function template<S extends Shape, V extends Record<string, Bound | readonly Bound[]>>(
  name: string,
  build: (shape: S, holes: Holes<V>) => SQL[],
): (shape: S, values: V) => SQL[];
export function template<S extends Shape, V extends Record<string, Bound | readonly Bound[]>>(
  name: string,
  build: (shape: S, holes: Holes<V>) => SQL | SQL[],
): (shape: S, values: V) => SQL | SQL[] {
  const shapes = new Map<string, Pieces | Pieces[]>();
  return (shape, values) => {
    // Each list's length by its name: the holes are made per name and length.
    const sizes = Object.entries(values).map(([k, v]) => (Array.isArray(v) ? `${k}:${v.length}` : k));
    const key = JSON.stringify([shape, sizes]);
    let done = shapes.get(key);
    if (!done) {
      const built = build(shape, holesOf(values));
      done = Array.isArray(built) ? built.map((fragment) => render(name, fragment)) : render(name, built);
      if (shapes.size < MAX_SHAPES) shapes.set(key, done);
    }
    const bind = (r: Pieces) =>
      flat(
        r,
        r.slots.map((slot) => {
          if ("value" in slot) return slot.value;
          const value = values[slot.key];
          return Array.isArray(value) ? value[slot.index] : value;
        }),
      );
    return Array.isArray(done) ? done.map(bind) : bind(done);
  };
}

/**
 * A batch item as D1Session sends it: its statement, and how its result is
 * read. A query builder's (select, insert, update, delete) is Drizzle's
 * prepared query; a raw statement (db.all(sql`...`), which the page
 * statements are) maps its own result.
 */
function sendable(item: BatchItem<"sqlite">): {
  text: string;
  values: readonly unknown[];
  read(result: unknown): unknown;
} {
  if (is(item, SQLiteRaw)) {
    const { text, values } = textOf(item.getSQL());
    return { text, values, read: (result) => item.mapResult(result, true) };
  }
  if (
    is(item, SQLiteSelectBase) ||
    is(item, SQLiteInsertBase) ||
    is(item, SQLiteUpdateBase) ||
    is(item, SQLiteDeleteBase)
  ) {
    const prepared = item.prepare();
    const { sql, params } = prepared.getQuery();
    return { text: sql, values: params, read: (result) => prepared.mapResult(result, true) };
  }
  throw new Error("a batch item that is neither a raw statement nor a query builder");
}

/**
 * Drizzle's D1 session, but its batch also takes raw statements with bound
 * values: Drizzle's own binds them to a D1 statement it never prepared
 * (drizzle-orm issue 2277). Each statement is sent as the isolate's dialect
 * renders it (one of rendered parts as it is, with no walk of its tree),
 * and results are mapped as Drizzle maps them.
 */
class D1Session extends SQLiteD1Session<Record<string, never>, Record<string, never>> {
  private readonly d1: D1Database;

  constructor(d1: D1Database) {
    super(d1, dialect, undefined);
    this.d1 = d1;
  }

  override async batch<T extends BatchItem<"sqlite">[] | readonly BatchItem<"sqlite">[]>(queries: T) {
    const items = queries.map(sendable);
    const results = await this.d1.batch(items.map(({ text, values }) => this.d1.prepare(text).bind(...values)));
    return results.map((result, i) => items[i]?.read(result));
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
  /**
   * The shards that hold a state's filings: several for a state split in
   * parts (src/db/shards.ts, partsOf). Without, every state is in one shard.
   */
  readonly partsOf?: ((state: string) => readonly string[]) | undefined;
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
