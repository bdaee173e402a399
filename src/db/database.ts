/**
 * The Drizzle handle the loader and the feed write and read through, whichever
 * driver carries it: D1's in the Worker and in tests, sqlite-proxy over the
 * local D1 file in scripts (seed/localD1.ts). Both build the same SQLite
 * statements and batch them; only the result of `run` differs, which the
 * loader does not read.
 */
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import type * as schema from "./schema.ts";

/** D1 allows at most 100 bound parameters in one statement. */
export const D1_MAX_PARAMS = 100;

/** D1 allows at most five terms in one compound SELECT. */
export const MAX_COMPOUND = 5;

export type Db = BaseSQLiteDatabase<"async", unknown, typeof schema> & {
  batch<U extends BatchItem<"sqlite">, T extends Readonly<[U, ...U[]]>>(batch: T): Promise<BatchResponse<T>>;
};
