/**
 * The migrations applied to an in-memory node:sqlite database, as wrangler
 * applies them to D1: each file in order, split at drizzle-kit's breakpoints.
 */
import { readdirSync, readFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { getTableColumns, getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { refreshAll, writeFilings } from "../../scripts/bulk/load.ts";
import type { FilingRecord } from "../../src/db/records.ts";
import * as schema from "../../src/db/schema.ts";

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
  withLaterColumns(db);
  writeFilings(db, records, 1, () => {}, now);
  refreshAll(db);
  return db;
}

/**
 * Adds to an older schema the columns later migrations add, empty, so the
 * loaders of today can write into it (a data migration's test loads with
 * them what the migration then rebuilds).
 */
function withLaterColumns(db: DatabaseSync): void {
  for (const table of Object.values(schema).filter((t) => is(t, SQLiteTable))) {
    const name = getTableName(table);
    const present = new Set(
      (db.prepare(`pragma table_info("${name}")`).all() as { name: string }[]).map((c) => c.name),
    );
    if (present.size === 0) continue;
    for (const column of Object.values(getTableColumns(table))) {
      // Columns are declared by their keys; the database's names are snake_case (casing: "snake_case").
      const stored = column.name.replace(/[A-Z]/g, (c: string) => `_${c.toLowerCase()}`);
      if (!present.has(stored)) db.exec(`alter table "${name}" add column "${stored}" ${column.getSQLType()}`);
    }
  }
}

/** Every facet row, by day and in total, in key order. */
export function facetRows(db: DatabaseSync) {
  return [
    db.prepare("select * from facet_days order by scope, place, name, facet, day").all(),
    db.prepare("select * from facet_counts order by scope, place, name, facet").all(),
  ];
}
