/**
 * How New York City's rows find their filing once staged (nyc.ts). Only a
 * filing's own Master row names its filing (its CRFN); every other row
 * learns it from another row, which may be read first or later, in the
 * same file or another:
 * - a reference by `file_nbr` or `crfn` names the filing's number itself;
 *   one by `doc_id_ref` takes the filing of that document's Master row
 *   (its part is that document id, so the row is found when it arrives);
 * - an amendment's Master row takes the filing of its first reference that
 *   has one (its references' row ids start with its document id);
 * - a party row takes the filing of its document's Master row.
 * After each staged group, these three run in that order over the
 * documents the group touched and those whose references name them, each
 * an indexed read, so a row is linked whichever of the rows came first.
 */
import { and, eq, isNotNull, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/database.ts";
import { sourceRows } from "../../db/schema.ts";
import type { StagedRow } from "./source.ts";

export const NYC = "nyc-acris";
export const MASTER = "nyc_master";
export const PARTIES = "nyc_parties";
export const REFERENCES = "nyc_references";

/** A reference row's id: its document's id, this separator, and a hash of its fields. */
export const REFERENCE_SEPARATOR = "/";
/** The character after the separator: a document's references are the ids from `doc/` up to `doc0`. */
const AFTER_SEPARATOR = "0";

/** The link statements of a staged group (Source.links). */
export function nycLinks(db: Db, rows: StagedRow[]): BatchItem<"sqlite">[] {
  const documents = new Set<string>();
  for (const row of rows) {
    if (row.part !== null) documents.add(row.part);
    if (row.fields.document_id) documents.add(row.fields.document_id);
  }
  if (documents.size === 0) return [];
  // One bound parameter however large the group (D1 allows 100).
  const touched = sql`select value from json_each(${JSON.stringify([...documents].sort())})`;
  const m = alias(sourceRows, "m");
  const r = alias(sourceRows, "r");
  const inSource = (t: { source: SQLiteColumn; tab: SQLiteColumn }, tab: string) =>
    and(eq(t.source, NYC), eq(t.tab, tab));
  // `+tab`: rows found by their part (source_rows_part), not among every row of the table (source_rows_row).
  const byPart = (column: SQLiteColumn, tab: string) => sql`+${column} = ${tab}`;
  // Documents whose references name a touched document (by doc_id_ref): their rows follow it.
  const referring = db
    .select({ document: sql`substr(${r.rowId}, 1, instr(${r.rowId}, ${REFERENCE_SEPARATOR}) - 1)` })
    .from(r)
    .where(and(eq(r.source, NYC), byPart(r.tab, REFERENCES), sql`${r.part} in (${touched})`));
  const scope = sql`(${touched} union ${referring.getSQL()})`;
  const masterFiling = (document: SQL) =>
    sql`(${db
      .select({ filing: m.filing })
      .from(m)
      .where(and(inSource(m, MASTER), sql`${m.rowId} = ${document}`))})`;
  const firstReference = sql`(${db
    .select({ filing: r.filing })
    .from(r)
    .where(
      and(
        inSource(r, REFERENCES),
        sql`${r.rowId} >= ${sourceRows.rowId} || ${REFERENCE_SEPARATOR}`,
        sql`${r.rowId} < ${sourceRows.rowId} || ${AFTER_SEPARATOR}`,
        isNotNull(r.filing),
      ),
    )
    .orderBy(r.rowId)
    .limit(1)})`;
  const link = (tab: string, parts: SQL, filing: SQL) =>
    db
      .update(sourceRows)
      .set({ filing })
      .where(
        and(
          eq(sourceRows.source, NYC),
          byPart(sourceRows.tab, tab),
          sql`${sourceRows.part} in ${parts}`,
          sql`${sourceRows.filing} is not ${filing}`,
        ),
      );
  const part = sql`${sourceRows.part}`;
  return [
    link(REFERENCES, sql`(${touched})`, masterFiling(part)),
    // An amendment's Master row carries its document id as its part; a filing's own carries none.
    link(MASTER, scope, firstReference),
    link(PARTIES, scope, masterFiling(part)),
  ];
}
