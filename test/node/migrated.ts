/**
 * The migrations applied to an in-memory node:sqlite database, as wrangler
 * applies them to D1: each file in order, split at drizzle-kit's breakpoints.
 */
import { readdirSync, readFileSync } from "node:fs";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { getTableColumns, getTableName, is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import { refreshAll, writeFilings } from "../../scripts/bulk/load.ts";
import { localD1Database } from "../../scripts/localD1.ts";
import { upsertFilings } from "../../src/db/load.ts";
import type { FilingRecord } from "../../src/db/records.ts";
import * as schema from "../../src/db/schema.ts";
import type { Db } from "../../src/queries/db.ts";

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
 * file `before`, or through the last (a data migration to test against
 * what the loaders write).
 */
export function loadedBefore(before: string | undefined, records: FilingRecord[], now: number): DatabaseSync {
  const db = migratedDatabase(before);
  withLaterColumns(db);
  writeFilings(db, records, 1, () => {}, now);
  withEarlierColumns(db);
  refreshAll(db);
  // The loaders before LENDER_LAPSES wrote no "k" facets.
  if (before !== undefined && before <= LENDER_LAPSES) withoutLenderLapses(db);
  if (before !== undefined && before <= TALLIES) withRunningTotals(db);
  return db;
}

/** The migration that built the lenders' facets by lapse day ("k", schema.ts). */
export const LENDER_LAPSES = "0030_lender_lapse_facets.sql";

/** The migration that gives their month rows their filings under each industry term (facet_tallies.industries). */
export const LENDER_TERMS = "0033_lender_industry_months.sql";

/** Takes away the lenders' facets by lapse day, as a database before LENDER_LAPSES had none. */
export function withoutLenderLapses(db: DatabaseSync): void {
  db.exec("delete from facet_tallies where scope = 'k'");
  db.exec("delete from facet_counts where scope = 'k'");
}

/** The migration that moved facet counts by day to facet_tallies (facet_days kept them before). */
const TALLIES = "0024_bounded_writes.sql";

/**
 * The loaders' facet counts by day (facet_tallies' days, and the old bucket
 * in facet_counts.old) as a database migrated before TALLIES kept them:
 * facet_days, with running totals from the newest day back.
 */
function withRunningTotals(db: DatabaseSync): void {
  db.exec(`insert into facet_days (scope, place, name, facet, day, filings, running)
    select scope, place, name, facet, day, filings,
      sum(filings) over (partition by scope, place, name, facet order by day desc)
    from (
      select scope, place, name, facet, day, filings from facet_tallies where day not like 'm%'
      union all
      select scope, place, name, facet, '0000-00-00', old from facet_counts where old <> 0
    )`);
}

/** A column's name in the database: columns are declared by their keys, stored snake_case. */
const storedName = (key: string) => key.replace(/[A-Z]/g, (c: string) => `_${c.toLowerCase()}`);

/**
 * Adds to an older schema the tables and columns later migrations add,
 * empty, and lets go of the old columns the loaders no longer write (NOT
 * NULL dropped, on a table still empty), so the loaders of today can write
 * into it (a data migration's test loads with them what the migration then
 * rebuilds).
 */
function withLaterColumns(db: DatabaseSync): void {
  for (const table of Object.values(schema).filter((t) => is(t, SQLiteTable))) {
    const name = getTableName(table);
    const columns = Object.values(getTableColumns(table));
    const info = db.prepare(`pragma table_info("${name}")`).all() as { name: string; notnull: number }[];
    if (info.length === 0) {
      const defined = columns.map((c) => `"${storedName(c.name)}" ${c.getSQLType()}${c.primary ? " primary key" : ""}`);
      // A composite key too: the loaders' upserts name it.
      for (const key of getTableConfig(table).primaryKeys) {
        defined.push(`primary key (${key.columns.map((c) => `"${storedName(c.name)}"`).join(", ")})`);
      }
      db.exec(`create table "${name}" (${defined.join(", ")})`);
      continue;
    }
    const current = new Set(columns.map((c) => storedName(c.name)));
    const gone = info.filter((c) => c.notnull && !current.has(c.name)).map((c) => c.name);
    if (gone.length > 0) {
      const { sql } = db.prepare("select sql from sqlite_master where type = 'table' and name = ?").get(name) as {
        sql: string;
      };
      const loose = gone.reduce((text, c) => text.replace(new RegExp(`(\`${c}\` [a-z]+) NOT NULL`), "$1"), sql);
      db.exec(`drop table "${name}"`);
      db.exec(loose);
    }
    const present = new Set(info.map((c) => c.name));
    for (const column of columns) {
      const stored = storedName(column.name);
      if (!present.has(stored)) db.exec(`alter table "${name}" add column "${stored}" ${column.getSQLType()}`);
    }
  }
}

/**
 * Fills the old columns a later migration moved elsewhere back from where
 * the loaders of today write them: a secured party's name and details
 * (lender_names and lenders, since migration 0021).
 */
function withEarlierColumns(db: DatabaseSync): void {
  const columns = new Set(
    (db.prepare(`pragma table_info("secured_parties")`).all() as { name: string }[]).map((c) => c.name),
  );
  if (!columns.has("name_words")) return;
  const details = ["type", "name", "category", "street1", "street2", "city", "state", "zip", "country"];
  db.exec(`update secured_parties set name_words = (select words from lender_names where id = name_id),
    ${details
      .map(
        (d) =>
          `"${d}" = (select l."${d}" from filings f join lenders l on l.id = f.lenders ->> secured_parties.position where f.id = secured_parties.filing_id)`,
      )
      .join(", ")}`);
}

/** Every facet row, by day and in total, in key order. */
export function facetRows(db: DatabaseSync) {
  return [
    db.prepare("select * from facet_days order by scope, place, name, facet, day").all(),
    // Without the old bucket of migration 0024 (TALLIES), which facet_days holds as a day before it.
    db
      .prepare("select scope, place, name, facet, filings, ref from facet_counts order by scope, place, name, facet")
      .all(),
  ];
}

/** A handle over an empty migrated database that runs each statement, and each statement's text and parameter count. */
export function countingDb() {
  const sqlite = migratedDatabase();
  const counts: number[] = [];
  const texts: string[] = [];
  const run = (sql: string, params: unknown[]) => {
    counts.push(params.length);
    texts.push(sql);
    const stmt = sqlite.prepare(sql);
    stmt.setReturnArrays(true);
    return { rows: stmt.all(...(params as SQLInputValue[])) };
  };
  const db = drizzle(
    async (sql, params) => run(sql, params),
    async (batch) => batch.map((q) => run(q.sql, q.params)),
    { casing: "snake_case" },
  ) as unknown as Db;
  return { db, counts, texts };
}

/**
 * `records` loaded into a fresh database of every migration, as an import
 * loads them (upsertFilings), 300 at a time: a month's row takes filings
 * from several loads. The database and its handle, for loads after.
 */
export async function loadedInGroups(records: FilingRecord[], now: number) {
  const db = migratedDatabase();
  const local = localD1Database(db);
  for (let i = 0; i < records.length; i += 300)
    await upsertFilings(local, records.slice(i, i + 300), { now: new Date(now) });
  return { db, local };
}

/** `record` terminated by an amendment filed at `filedAt`, numbered with `suffix`. */
export const withTermination = (record: FilingRecord, filedAt: string, suffix = "T"): FilingRecord => ({
  ...record,
  amendments: [
    ...record.amendments,
    { number: `${record.number}-${suffix}`, filedAt, kind: "termination", description: "Termination" },
  ],
});
