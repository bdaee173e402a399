/**
 * The migrations applied to an in-memory node:sqlite database, as wrangler
 * applies them to D1: each file in order, split at drizzle-kit's breakpoints.
 */
import { readdirSync, readFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { refreshAll, writeFilings } from "../../scripts/bulk/load.ts";
import type { FilingRecord } from "../../src/db/records.ts";

/** Runs one migration file of migrations/ on `db`. */
export function runMigration(db: DatabaseSync, file: string): void {
  for (const statement of readFileSync(`migrations/${file}`, "utf8").split("--> statement-breakpoint")) {
    db.exec(statement);
  }
}

/** A fresh database with every migration applied, or only those before the file `before`. */
export function migratedDatabase(before?: string): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  for (const file of readdirSync("migrations")
    .filter((f) => f.endsWith(".sql") && (before === undefined || f < before))
    .sort()) {
    runMigration(db, file);
  }
  return db;
}

/**
 * `records` written by the loaders into a database migrated up to the
 * file `before` (a data migration to test against what the loaders write).
 */
export function loadedBefore(before: string, records: FilingRecord[], now: number): DatabaseSync {
  const db = migratedDatabase(before);
  writeFilings(db, records, 1, () => {}, now);
  refreshAll(db);
  return db;
}

/** Every facet row, by day and in total, in key order. */
export function facetRows(db: DatabaseSync) {
  return [
    db.prepare("select * from facet_days order by scope, place, name, facet, day").all(),
    db.prepare("select * from facet_counts order by scope, place, name, facet").all(),
  ];
}
