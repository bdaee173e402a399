/**
 * The Drizzle handle over D1, and the one place D1 is called from a request:
 * a failure of D1 becomes a 503 here, logged once with the request id.
 */

import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type { Context } from "hono";
import * as schema from "../db/schema.ts";
import type { AppEnv } from "../http/context.ts";
import { log } from "../http/context.ts";
import { unavailable } from "../http/errors.ts";

export type Db = DrizzleD1Database<typeof schema>;

export function database(d1: D1Database): Db {
  return drizzle(d1, { schema, casing: "snake_case" });
}

/** Runs `work` against D1; any D1 failure becomes a 503 with Retry-After. */
export async function withDb<T>(c: Context<AppEnv>, work: (db: Db) => Promise<T>): Promise<T> {
  try {
    return await work(database(c.env.DB));
  } catch (err) {
    // The name and SQLite code only: D1 messages can quote SQL.
    const code = err instanceof Error ? /SQLITE_[A-Z]+/.exec(err.message)?.[0] : undefined;
    log(c, "error", { event: "d1_failure", error: err instanceof Error ? err.name : "unknown", code });
    throw unavailable("database");
  }
}
