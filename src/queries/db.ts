/**
 * The Drizzle handle over D1, and the one place D1 is called from a request:
 * - every request reads through one D1 session (Sessions API, for read
 *   replication): from the bookmark the client sent in x-d1-bookmark, else
 *   from the nearest replica; the response carries the session's bookmark;
 * - every batch is metered (round trips, rows read, time) for Server-Timing
 *   and the request log;
 * - a failure of D1, or no answer within DB_TIMEOUT_MS, becomes a 503 with
 *   Retry-After, logged once with the request id and without SQL.
 */
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type { Context } from "hono";
import * as schema from "../db/schema.ts";
import { BOOKMARK_HEADER, requestedBookmark } from "../http/bookmark.ts";
import type { AppEnv, D1Meter } from "../http/context.ts";
import { log } from "../http/context.ts";
import { unavailable } from "../http/errors.ts";

export type Db = DrizzleD1Database<typeof schema>;

/** Longest a request waits on D1 before answering 503. */
export const DB_TIMEOUT_MS = 10_000;

function database(d1: D1Database | D1DatabaseSession): Db {
  // Drizzle's D1 driver only calls prepare and batch, which a session has too.
  return drizzle(d1 as D1Database, { schema, casing: "snake_case" });
}

/** `d1` with its batches counted into `meter`. */
function metered(d1: D1DatabaseSession, meter: D1Meter): D1DatabaseSession {
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

/**
 * The request's D1 session, opened on first use and shared by the request's
 * batches, so they read a sequentially consistent view. Throws the 400 of a
 * malformed x-d1-bookmark.
 */
function session(c: Context<AppEnv>): D1DatabaseSession {
  let s = c.get("d1Session");
  if (!s) {
    s = c.env.DB.withSession(requestedBookmark(c) ?? "first-unconstrained");
    c.set("d1Session", s);
  }
  return s;
}

/** Runs `work` against D1; any D1 failure or timeout becomes a 503 with Retry-After. */
export async function withDb<T>(c: Context<AppEnv>, work: (db: Db) => Promise<T>): Promise<T> {
  const d1 = session(c);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DbTimeout()), DB_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([work(database(metered(d1, c.get("d1")))), timeout]);
    // The newest state this request read: sent back, it keeps the client's next request at least as new.
    const bookmark = d1.getBookmark();
    if (bookmark) c.header(BOOKMARK_HEADER, bookmark);
    return result;
  } catch (err) {
    // The name and SQLite code only: D1 messages can quote SQL.
    const code = err instanceof Error ? /SQLITE_[A-Z]+/.exec(err.message)?.[0] : undefined;
    log(c, "error", { event: "d1_failure", error: err instanceof Error ? err.name : "unknown", code });
    throw unavailable("database");
  } finally {
    clearTimeout(timer);
  }
}
