/**
 * Staging an office's rows (source_rows, src/db/schema.ts): each row read,
 * by file or by pull, is written under its table and identity. A row not
 * staged before, or changed since (a lien marked Released), is marked
 * pending, so its filing is assembled again (assemble.ts); so are the rows
 * of a filing a row leaves for another, so that one is assembled again from
 * the rows it keeps; a row read again unchanged writes nothing. Rows are
 * written in groups of a few hundred, each group one D1 batch (one
 * transaction), every statement within D1's 100 bound parameters.
 */
import { and, eq, inArray, ne, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { alias } from "drizzle-orm/sqlite-core";
import { D1_MAX_PARAMS, type Db } from "../../db/database.ts";
import { sourceRows } from "../../db/schema.ts";
import { FeedFileError, type Reject } from "../read.ts";
import { type RowRead, type SodaRow, sodaCsvRows, sodaDate, sodaFlag, sodaJsonRows } from "./soda.ts";
import { type Source, type SourceTable, type StagedRow, tableOf, tidyRow } from "./source.ts";

/** Rows written per batch, by default (StageOptions.groupSize). */
const STAGE_GROUP = 500;

/** What staging some rows did. */
export interface StageCounts {
  /** Rows read, good or bad. */
  rows: number;
  /** Rows staged new or changed (their filings are assembled again). */
  changed: number;
  /** Rows that could not be used (each one a reject). */
  rejected: number;
  /** The newest office date among the rows (YYYY-MM-DD), or null. */
  newest: string | null;
}

export const noCounts = (): StageCounts => ({ rows: 0, changed: 0, rejected: 0, newest: null });

export function addCounts(a: StageCounts, b: StageCounts): StageCounts {
  return {
    rows: a.rows + b.rows,
    changed: a.changed + b.changed,
    rejected: a.rejected + b.rejected,
    newest: a.newest === null || (b.newest !== null && b.newest > a.newest) ? b.newest : a.newest,
  };
}

/** Parts linked per UPDATE at most (fewer where a statement takes fewer parameters). */
const LINK_LIST = 1000;

/** `items` made `size` long by repeating its last item (an IN list that matches the same rows). */
function padded<T>(items: T[], size: number): T[] {
  const last = items.at(-1);
  return last === undefined || items.length >= size ? items : [...items, ...Array<T>(size - items.length).fill(last)];
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The transaction table of a source whose tables join (Colorado's), if it has one. */
const transactionTable = (source: Source) => source.tables.find((t) => t.joins === "transaction");

/** The filing of a member row's transaction, as staged (null until its transaction is read). */
function filingOfPart(db: Db, source: Source, transactions: string, part: SQL): SQL {
  const t = alias(sourceRows, "t");
  const owner = db
    .select({ filing: t.filing })
    .from(t)
    .where(and(eq(t.source, source.id), eq(t.tab, transactions), sql`${t.part} = ${part}`))
    .limit(1);
  return sql`(${owner})`;
}

/**
 * Marks pending the rows of the filings `left` selects (the filings rows are
 * about to leave), so each is assembled again from the rows it keeps.
 */
export function markLeftPending(db: Db, source: string, left: SQL) {
  return db
    .update(sourceRows)
    .set({ pending: true })
    .where(and(eq(sourceRows.source, source), sql`${sourceRows.filing} in (${left})`, sql`${sourceRows.pending} = 0`));
}

/**
 * The statement marking pending, before the upsert, the rows of each filing
 * a row of `rows` leaves (its staged filing differs from the one its key
 * gives now: a document re-typed in place from an amendment to a filing), so
 * that filing is assembled again from the rows it keeps. A row whose key
 * gives no filing keeps its staged one (the upsert's coalesce) until the
 * links move it, and they mark it the same way (nycLinks.ts). One statement
 * per group, the rows as one bound parameter (D1 allows 100).
 */
function leavingStatement(db: Db, source: Source, rows: StagedRow[]) {
  const named = rows.flatMap((r) => (r.filing === null ? [] : [[r.tab, r.rowId, r.filing]]));
  if (named.length === 0) return [];
  // `cross join`: the group's rows first, each staged row found by its key (source_rows_row).
  const left = sql`select "s"."filing" from json_each(${JSON.stringify(named)}) as "j"
    cross join ${sourceRows} as "s" on "s"."source" = ${source.id}
      and "s"."tab" = json_extract("j"."value", '$[0]') and "s"."row_id" = json_extract("j"."value", '$[1]')
    where "s"."filing" is not json_extract("j"."value", '$[2]')`;
  return [markLeftPending(db, source.id, left)];
}

/**
 * Statements staging `rows`: an upsert that rewrites (and marks
 * pending) only a row whose fields (or its key's part) changed, returning
 * the rows it wrote;
 * then, where the source's tables join (Colorado's), each member row of the
 * group's parts (`fileid`) given its transaction's filing, whichever of the
 * two was read first. (One UPDATE with the lookup per row it touches: a
 * lookup per row inside a large INSERT costs SQLite a millisecond each.)
 */
function stageStatements(db: Db, source: Source, rows: StagedRow[], maxParams: number) {
  const transactions = transactionTable(source)?.tab;
  // Bound parameters: nine columns a row, and the update's one.
  const writes = chunk(rows, Math.floor((maxParams - 1) / 9)).map((part) =>
    db
      .insert(sourceRows)
      .values(
        part.map((r) => ({
          source: source.id,
          tab: r.tab,
          rowId: r.rowId,
          filing: r.filing,
          part: r.part,
          // Fields in name order: the same row reads the same from JSON (the office's order) and CSV (the header's).
          data: JSON.stringify(r.fields, Object.keys(r.fields).sort()),
          file: r.file,
          line: r.line,
          pending: true,
        })),
      )
      .onConflictDoUpdate({
        target: [sourceRows.source, sourceRows.tab, sourceRows.rowId],
        set: {
          data: sql`excluded.data`,
          // A row whose key gives no filing (a link gives it) keeps its own until the link moves it.
          filing: sql`coalesce(excluded.filing, ${sourceRows.filing})`,
          part: sql`excluded.part`,
          file: sql`excluded.file`,
          line: sql`excluded.line`,
          // A source whose loads replace what they name (Texas) marks each row read with its load in `part`: only a changed row is pending.
          pending: source.replaces ? sql`${sourceRows.pending} or ${sourceRows.data} is not excluded.data` : true,
        },
        // A row read again whose key gives another part (a key rule changed since it was staged) is rewritten too.
        setWhere: sql`${sourceRows.data} is not excluded.data or ${sourceRows.part} is not excluded.part`,
      })
      .returning({ pending: sourceRows.pending }),
  );
  const links: BatchItem<"sqlite">[] = [];
  if (transactions !== undefined) {
    const parts = [...new Set(rows.map((r) => r.part).filter((p): p is string => p !== null))];
    // Lists of one length (the last padded with its own last part): one statement text, prepared once.
    const size = Math.min(maxParams - 10, LINK_LIST);
    for (const group of chunk(parts, size).map((g) => padded(g, size))) {
      const owner = filingOfPart(db, source, transactions, sql`${sourceRows.part}`);
      links.push(
        db
          .update(sourceRows)
          .set({ filing: owner })
          .where(
            and(
              eq(sourceRows.source, source.id),
              ne(sourceRows.tab, transactions),
              inArray(sourceRows.part, group),
              sql`${sourceRows.filing} is not ${owner}`,
            ),
          ),
      );
    }
  }
  return { writes, links };
}

/** Writes `rows`; returns how many were new or changed. */
async function stageRows(db: Db, source: Source, rows: StagedRow[], maxParams = D1_MAX_PARAMS): Promise<number> {
  if (rows.length === 0) return 0;
  const { writes, links } = stageStatements(db, source, rows, maxParams);
  const leaving = leavingStatement(db, source, rows);
  const statements = [...leaving, ...writes, ...links, ...(source.links?.(db, rows) ?? [])] as [
    BatchItem<"sqlite">,
    ...BatchItem<"sqlite">[],
  ];
  const results = (await db.batch(statements)) as unknown[];
  return results
    .slice(leaving.length, leaving.length + writes.length)
    .reduce<number>((n, r) => n + (r as { pending: boolean }[]).filter((w) => w.pending).length, 0);
}

/** The office's date of a row (the day its data is through), as YYYY-MM-DD, when it is a real day no later than `latest`. */
function officeDay(table: SourceTable, fields: SodaRow, latest: string): string | null {
  const column = table.throughColumn ?? table.dateColumn;
  const value = column ? fields[column] : undefined;
  const day = value?.slice(0, 10);
  if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day) || day > latest) return null;
  return day;
}

export interface StageOptions {
  /** Where the rows are read from, for places: a file as named, or the dataset's URL. */
  file: string;
  /** The rows' table, when the caller knows it (a pull); else told from the columns. */
  table?: SourceTable;
  /** A row's place when it is not its line (a pull's rows: their position in the pull). */
  lineOf?: (read: RowRead, index: number) => number;
  /** The load's time: office dates after the next day are not taken as the data's newest. */
  now?: Date;
  onReject?: (reject: Reject) => void | Promise<void>;
  /** After each group is written, with the counts so far. */
  onProgress?: (counts: StageCounts) => void;
  /**
   * Bound parameters a statement may take: D1's 100 (the default), or more
   * where the database allows (a local file opened in-process: fewer, larger
   * statements).
   */
  maxParams?: number;
  /** Rows written per batch (one transaction); default 500. */
  groupSize?: number;
}

/**
 * Stages the rows `reads` gives (a file's or a page's): each row's table told
 * from its columns (or given), its identity and filing found, the unusable
 * ones rejected with their reason, the rest written a group at a time.
 */
export async function stageReads(
  db: Db,
  source: Source,
  reads: AsyncIterable<RowRead>,
  options: StageOptions,
  detected: { table?: SourceTable } = {},
): Promise<StageCounts> {
  const counts = noCounts();
  const latest = new Date((options.now ?? new Date()).getTime() + 86_400_000).toISOString().slice(0, 10);
  let group: StagedRow[] = [];
  let table = options.table ?? detected.table;
  const flush = async () => {
    if (!table || group.length === 0) return;
    counts.changed += await stageRows(db, source, group, options.maxParams);
    group = [];
    options.onProgress?.({ ...counts });
  };
  let index = 0;
  for await (const read of reads) {
    const line = options.lineOf?.(read, index) ?? read.line;
    index += 1;
    counts.rows += 1;
    const place = {
      file: options.file,
      line,
      ...(read.endLine > read.line && !options.lineOf ? { end_line: read.endLine } : {}),
    };
    const reject = async (reason: string) => {
      counts.rejected += 1;
      await options.onReject?.({ ...place, reason, raw: read.raw });
    };
    if ("error" in read) {
      await reject(read.error);
      continue;
    }
    table ??= detected.table ?? tableOf(source, Object.keys(read.fields)) ?? undefined;
    detected.table ??= table;
    if (!table) {
      throw new FeedFileError(
        `${options.file}: its rows are not ${source.state}'s register (no column of ${source.tables.map((t) => t.marks[0]).join(", ")})`,
      );
    }
    const fields = tidyRow(table, read.fields, sodaDate, sodaFlag);
    const day = officeDay(table, fields, latest);
    for (const column of table.volatile ?? []) delete fields[column];
    const key = table.key(fields);
    if ("error" in key) {
      await reject(key.error);
      continue;
    }
    const row: StagedRow = { ...key, tab: table.tab, fields, file: options.file, line };
    if (day !== null && (counts.newest === null || day > counts.newest)) counts.newest = day;
    group.push(row);
    if (group.length >= (options.groupSize ?? STAGE_GROUP)) await flush();
  }
  await flush();
  return counts;
}

/** The file kinds a source file may be: the portal's JSON or CSV, by extension. */
export function sourceFormat(file: string): "json" | "csv" | null {
  const ext = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase();
  return ext === "json" ? "json" : ext === "csv" ? "csv" : null;
}

/**
 * Stages a file as the portal gives it: JSON (an array of row objects) or
 * CSV (field names or a whole export's display names as its header), its
 * table told from its columns. A file that is not one of the source's
 * tables, or that breaks (truncated JSON, an unusable header), stops with a
 * FeedFileError; rows staged before that stay.
 */
export async function stageFile(
  db: Db,
  source: Source,
  file: string,
  body: ReadableStream<Uint8Array>,
  options: Omit<StageOptions, "file" | "table">,
): Promise<StageCounts & { table: SourceTable | null }> {
  const format = sourceFormat(file);
  if (!format) throw new FeedFileError(`${file}: unknown format; name it .json or .csv, as the portal does`);
  const detected: { table?: SourceTable } = {};
  const reads =
    format === "json"
      ? sodaJsonRows(body)
      : sodaCsvRows(body, (headers) => {
          const named = source.tables.map((t) => ({
            table: t,
            names: headers.map((h) => t.exportHeaders?.[h] ?? h),
          }));
          const best = named
            .map((n) => ({ ...n, score: n.table.marks.filter((m) => n.names.includes(m)).length }))
            .sort((a, b) => b.score - a.score)[0];
          if (!best || best.score === 0) {
            throw new FeedFileError(
              `header: not a table of ${source.state}'s register (no column ${source.tables.map((t) => t.marks[0]).join(", ")})`,
            );
          }
          detected.table = best.table;
          return best.names;
        });
  const counts = await stageReads(db, source, reads, { ...options, file }, detected);
  return { ...counts, table: detected.table ?? null };
}
