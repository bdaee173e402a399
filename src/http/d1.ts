/**
 * The one place a request turns into the D1 handles its queries run on:
 * - a request reads the shard of the filing it names (withFiling), the
 *   shards of the state it names (stateReader: one, or each part of a split
 *   state) or every shard (shardReader), the last two through a ShardReader
 *   for the merges of src/queries/fanout.ts; which routes do which is
 *   listed in docs/fan-out.md;
 * - every request reads each shard it touches through one D1 session
 *   (Sessions API, for read replication): from the client's bookmark for
 *   that shard (x-d1-bookmark), else from the nearest replica; the response
 *   carries the newest bookmark of every shard, touched or sent;
 * - every batch is metered (round trips, rows read, time) for Server-Timing
 *   and the request log;
 * - a failure of D1, or no answer within DB_TIMEOUT_MS, becomes a 503 with
 *   Retry-After, logged once with the request id and without SQL; so does a
 *   shard layout that does not fit the bindings (src/db/shards.ts).
 * The queries themselves take only Db values (src/queries/db.ts).
 */
import type { Context } from "hono";
import { partsOf, ShardConfigError, type Shards, shardOf, shardsOf } from "../db/shards.ts";
import { type Db, database, type ShardReader } from "../queries/db.ts";
import { BOOKMARK_HEADER, formatBookmarks, knownShards, newest, requestedBookmarks } from "./bookmark.ts";
import { type AppEnv, type D1Meter, log } from "./context.ts";
import { unavailable } from "./errors.ts";

/** Longest a request waits on D1 before answering 503. */
export const DB_TIMEOUT_MS = 10_000;

/** One shard's part of a request's D1Meter. */
type ShardMeter = Pick<D1Meter, "batches" | "ms"> & { rowsRead: number };

/** `d1` with its batches counted into `meter`. */
function metered(d1: D1DatabaseSession, meter: ShardMeter): D1DatabaseSession {
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          const started = Date.now();
          const results = await target.batch(statements);
          meter.batches += 1;
          meter.ms += Date.now() - started;
          for (const r of results) meter.rowsRead += r.meta?.rows_read ?? 0;
          return results;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

class DbTimeout extends Error {
  override name = "DbTimeout";
}

/** The request's shards, or a 503 when the layout does not fit the bindings. */
function shards(c: Context<AppEnv>): Shards {
  try {
    return shardsOf(c.env);
  } catch (err) {
    if (!(err instanceof ShardConfigError)) throw err;
    log(c, "error", { event: "shard_config_invalid", error: err.message });
    throw unavailable("database");
  }
}

/**
 * The request's D1 session on `shard`, opened on first use and shared by
 * the request's batches there, so they read a sequentially consistent view.
 * Throws the 400 of a malformed x-d1-bookmark.
 */
function session(c: Context<AppEnv>, layout: Shards, shard: string): D1DatabaseSession {
  let sessions = c.get("d1Sessions");
  if (!sessions) {
    sessions = new Map();
    c.set("d1Sessions", sessions);
  }
  let s = sessions.get(shard);
  if (!s) {
    const d1 = layout.databases.get(shard);
    if (!d1) throw new Error(`no shard ${shard}`);
    s = d1.withSession(requestedBookmarks(c)?.get(shard) ?? "first-unconstrained");
    sessions.set(shard, s);
  }
  return s;
}

/**
 * The newest state this request read on each shard, and any newer one the
 * client sent for shards it did not touch: sent back, it keeps the client's
 * next request at least as new everywhere.
 */
function setBookmarks(c: Context<AppEnv>, layout: Shards): void {
  const read = new Map<string, string>();
  for (const [shard, s] of c.get("d1Sessions") ?? []) {
    const bookmark = s.getBookmark();
    if (bookmark) read.set(shard, bookmark);
  }
  const sent = knownShards(requestedBookmarks(c), layout.layout.shards);
  const value = formatBookmarks(newest(sent, read), layout.layout.shards.length === 1);
  if (value) c.header(BOOKMARK_HEADER, value);
}

/**
 * Runs `work` on each of `names` (shard bindings) in parallel, results in
 * that order; any D1 failure or timeout becomes a 503 with Retry-After.
 */
async function withShards<T>(
  c: Context<AppEnv>,
  names: readonly string[],
  work: (db: Db, shard: string) => Promise<T>,
): Promise<T[]> {
  const layout = shards(c);
  const handles = names.map((shard) => ({
    shard,
    d1: session(c, layout, shard),
    meter: { batches: 0, rowsRead: 0, ms: 0 } satisfies ShardMeter,
  }));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DbTimeout()), DB_TIMEOUT_MS);
  });
  try {
    // Shards are read at once: the request waits for the slowest, so round
    // trips and time add the most any one shard took; rows read add up.
    const meters = handles.map((h) => h.meter);
    const finished = Promise.all(handles.map(({ shard, d1, meter }) => work(database(metered(d1, meter)), shard)));
    const results = await Promise.race([finished, timeout]);
    const meter = c.get("d1");
    meter.batches += Math.max(0, ...meters.map((m) => m.batches));
    meter.ms += Math.max(0, ...meters.map((m) => m.ms));
    for (const { shard, meter: m } of handles)
      meter.shardRows.set(shard, (meter.shardRows.get(shard) ?? 0) + m.rowsRead);
    setBookmarks(c, layout);
    return results;
  } catch (err) {
    // The name and SQLite code only: D1 messages can quote SQL.
    const code = err instanceof Error ? /SQLITE_[A-Z]+/.exec(err.message)?.[0] : undefined;
    log(c, "error", { event: "d1_failure", error: err instanceof Error ? err.name : "unknown", code });
    throw unavailable("database");
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `work` on the shard that holds filing `number` of `state` (its
 * state's, or its part's of a split state): the request reads no other.
 */
export async function withFiling<T>(
  c: Context<AppEnv>,
  state: string,
  number: string,
  work: (db: Db) => Promise<T>,
): Promise<T> {
  const [result] = await withShards(c, [shardOf(shards(c).layout, state, number)], work);
  return result as T;
}

/** The request's shards as a ShardReader: each read through its session, metered, a fault a 503. */
export function shardReader(c: Context<AppEnv>): ShardReader {
  const { layout } = shards(c);
  return {
    shards: layout.shards,
    read: (names, work) => withShards(c, names, work),
    partsOf: (state) => partsOf(layout, state),
  };
}

/**
 * The shards of `state` as a ShardReader: its one shard, or each part of a
 * split state (src/db/shards.ts), which the merges of src/queries/fanout.ts
 * read at once as they read the shards of a cross-state list.
 */
export function stateReader(c: Context<AppEnv>, state: string): ShardReader {
  return { ...shardReader(c), shards: [...partsOf(shards(c).layout, state)] };
}
