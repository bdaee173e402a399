/**
 * The schema the migrations leave, as one step: migrations/ applied in
 * order to an in-memory SQLite database (split at drizzle-kit's
 * breakpoints, as wrangler applies them), then its tables and indexes
 * written out as SQLite itself records them. vitest.config.ts hands this to
 * test/setup.ts, which applies it to every shard of every test file: 68
 * statements where the migrations' history is 270 (tables made, filled,
 * rebuilt and dropped again), a fifth of a second less per database.
 * Built once per run from the files, so it is always the schema of the
 * migrations in the tree; test/node/schema-layout.test.ts checks what the
 * migrations themselves leave.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** A D1 migration as applyD1Migrations takes it. */
type Migration = {
  name: string;
  queries: string[];
};

export function migratedSchema(dir: string): Migration[] {
  const db = new DatabaseSync(":memory:");
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort();
  for (const file of files) {
    for (const statement of readFileSync(join(dir, file), "utf8").split("--> statement-breakpoint")) db.exec(statement);
  }
  const schema = db
    .prepare(
      "select type, sql from sqlite_master where sql is not null and name not like 'sqlite_%' order by type = 'table' desc, rowid",
    )
    .all() as { type: string; sql: string }[];
  const filled = (
    db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as {
      name: string;
    }[]
  ).filter(({ name }) => db.prepare(`select 1 from "${name}" limit 1`).get() !== undefined);
  db.close();
  // No migration leaves rows today; one that did would need them copied here.
  if (filled.length > 0) throw new Error(`migrations leave rows in ${filled.map((t) => t.name).join(", ")}`);
  return [{ name: `schema as of ${files.at(-1) ?? "no migration"}`, queries: schema.map((s) => s.sql) }];
}
