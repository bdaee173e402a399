/**
 * The migrations applied to an in-memory node:sqlite database, as wrangler
 * applies them to D1: each file in order, split at drizzle-kit's breakpoints.
 */
import { readdirSync, readFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";

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
