/**
 * How New York City's rows find their filing once staged (nyc.ts). Only a
 * filing's own Master row names its filing (its CRFN); every other row
 * learns it from another row, which may be read first or later, in the
 * same file or another:
 * - a reference carries in its part what it names: a document id takes
 *   the filing of that document's Master row; a number (`file_nbr` or
 *   `crfn`) is the filing's own when a filing's Master row has it, else
 *   takes the filing of the amendment whose number it is (a continuation
 *   naming the continuation before it), else stays the number itself;
 * - an amendment's Master row (its part: its number) takes the filing of
 *   its first reference that has one (its references' row ids start with
 *   its document id);
 * - a party row takes the filing of its document's Master row.
 * After each staged group, these three run in that order over the
 * documents the group touched and those whose references name them, each
 * an indexed read, so a row is linked whichever of the rows came first;
 * a filing a row leaves is marked to be assembled again.
 */
import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/database.ts";
import { sourceRows } from "../../db/schema.ts";
import type { StagedRow } from "./source.ts";
import { markLeftPending } from "./stage.ts";

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
  const a = alias(sourceRows, "a");
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
  // Documents whose references name a touched document or number (by part) or a touched filing's
  // number (by filing), and those whose references name one of them (by document id or, an
  // amendment's, by number): their rows follow it, two steps down a chain (a revocation of a
  // release of a lien) whichever of its documents came last.
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
  // The numbers of the referring documents that are amendments (an amendment's part).
  const referringNumbers = db
    .select({ number: m.part })
    .from(m)
    .where(and(inSource(m, MASTER), sql`${m.rowId} in (${referring})`, sql`+${m.part} is not null`));
  const referringThem = db
    .select({ document: documentOf(r2) })
    .from(r2)
    .where(
      and(
        eq(r2.source, NYC),
        byPart(r2.tab, REFERENCES),
        sql`${r2.part} in (${referring} union ${referringNumbers.getSQL()})`,
      ),
    );
  // Five terms, D1's most for a compound select: the documents, and the numbers references name.
  const scope = sql`(${touched} union ${referring} union ${referringThem.getSQL()} union ${referringNumbers.getSQL()})`;
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
  const part = sql`${sourceRows.part}`;
  // A reference's filing, by what its part names: as nyc.ts's key chose (a document id when it has one).
  const namesDocument = sql`coalesce(json_extract(${sourceRows.data}, '$.doc_id_ref'), '') <> ''`;
  const filingNumbered = sql`exists ${db
    .select({ one: sql`1` })
    .from(f)
    .where(and(inSource(f, MASTER), eq(f.filing, part), isNull(f.part)))}`;
  const amendmentNumbered = sql`(${db
    .select({ filing: a.filing })
    .from(a)
    .where(and(eq(a.source, NYC), byPart(a.tab, MASTER), eq(a.part, part)))
    .orderBy(a.rowId)
    .limit(1)})`;
  const referenceFiling = sql`case when ${namesDocument} then ${masterFiling(part)} when ${filingNumbered} then ${part} else coalesce(${amendmentNumbered}, ${part}) end`;
  // Before a link, the filings its rows leave are marked pending, so each is assembled again from
  // the rows it keeps (an amendment moved to another filing no longer ends the one it left). In the
  // inner select, `source_rows` is the select's own table (SQLite binds a name to the nearest FROM).
  const link = (rows: SQL | undefined, filing: SQL) => {
    const moving = and(rows, sql`${sourceRows.filing} is not ${filing}`);
    const left = db.select({ filing: sourceRows.filing }).from(sourceRows).where(moving);
    return [markLeftPending(db, NYC, left.getSQL()), db.update(sourceRows).set({ filing }).where(moving)];
  };
  // References and parties by the document or number they name (their part); amendments' Master rows by their document.
  const naming = (tab: string) =>
    and(eq(sourceRows.source, NYC), byPart(sourceRows.tab, tab), sql`${sourceRows.part} in ${scope}`);
  // `+part`: read by document (source_rows_row), not among every row with a part.
  const amendments = and(
    inSource(sourceRows, MASTER),
    sql`${sourceRows.rowId} in ${scope}`,
    sql`+${sourceRows.part} is not null`,
  );
  const round = [...link(naming(REFERENCES), referenceFiling), ...link(amendments, firstReference)];
  // Twice: a reference to an amendment takes its filing once that amendment has one.
  return [...round, ...round, ...link(naming(PARTIES), masterFiling(part))];
}
