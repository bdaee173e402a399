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
import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
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
  const r2 = alias(sourceRows, "r2");
  const rn = alias(sourceRows, "rn");
  const f = alias(sourceRows, "f");
  const inSource = (t: { source: SQLiteColumn; tab: SQLiteColumn }, tab: string) =>
    and(eq(t.source, NYC), eq(t.tab, tab));
  // `+tab`: rows found by their part (source_rows_part), not among every row of the table (source_rows_row).
  const byPart = (column: SQLiteColumn, tab: string) => sql`+${column} = ${tab}`;
  const documentOf = (row: { rowId: SQLiteColumn }) =>
    sql`substr(${row.rowId}, 1, instr(${row.rowId}, ${REFERENCE_SEPARATOR}) - 1)`;
  // The numbers of the touched documents that are filings.
  const touchedFilings = db
    .select({ filing: m.filing })
    .from(m)
    .where(and(inSource(m, MASTER), sql`${m.rowId} in (${touched})`, isNull(m.part)));
  // Documents whose references name a touched document (by doc_id_ref) or a touched filing's number
  // (by crfn or file_nbr), and those whose references name one of them: their rows follow it, two
  // steps down a chain (a revocation of a release of a lien) whichever of its documents came last.
  const referringByPart = db
    .select({ document: documentOf(r) })
    .from(r)
    .where(and(eq(r.source, NYC), byPart(r.tab, REFERENCES), sql`${r.part} in (${touched})`));
  const referringByNumber = db
    .select({ document: documentOf(rn) })
    .from(rn)
    .where(and(eq(rn.source, NYC), byPart(rn.tab, REFERENCES), sql`${rn.filing} in (${touchedFilings.getSQL()})`));
  // Two selects, not one with OR, so that each is read from its index.
  const referring = sql`${referringByPart.getSQL()} union ${referringByNumber.getSQL()}`;
  const referringThem = db
    .select({ document: documentOf(r2) })
    .from(r2)
    .where(and(eq(r2.source, NYC), byPart(r2.tab, REFERENCES), sql`${r2.part} in (${referring})`));
  // Four terms: D1 allows five to a compound select.
  const scope = sql`(${touched} union ${referring} union ${referringThem.getSQL()})`;
  const masterFiling = (document: SQL) =>
    sql`(${db
      .select({ filing: m.filing })
      .from(m)
      .where(and(inSource(m, MASTER), sql`${m.rowId} = ${document}`))})`;
  // A reference by CRFN may name an earlier amendment's document, not the filing's: one naming a
  // filing that is here comes first, so the amendment's filing does not hang on its references' order.
  const namesFiling = sql`exists ${db
    .select({ one: sql`1` })
    .from(f)
    .where(and(inSource(f, MASTER), eq(f.filing, r.filing), isNull(f.part)))}`;
  const firstReference = sql`(${db
    .select({ filing: r.filing })
    .from(r)
    .where(
      and(
        inSource(r, REFERENCES),
        sql`${r.rowId} >= ${sourceRows.rowId} || ${REFERENCE_SEPARATOR}`,
        sql`${r.rowId} < ${sourceRows.rowId} || ${AFTER_SEPARATOR}`,
        // `+`: read by the row index's range, never every row with a filing.
        sql`+${r.filing} is not null`,
      ),
    )
    .orderBy(sql`${namesFiling} desc`, r.rowId)
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
  // An amendment's Master row carries its document id as its part; a filing's own carries none.
  const round = [link(REFERENCES, scope, masterFiling(part)), link(MASTER, scope, firstReference)];
  // Twice: a reference to an amendment (by doc_id_ref) takes its filing once that amendment has one.
  return [...round, ...round, link(PARTIES, scope, masterFiling(part))];
}
