/**
 * Assembling an office's filings from their staged rows and loading them.
 * A step takes the next filings with pending rows (a few hundred, in
 * number order), reads every row staged for each, has the adapter make the
 * feed's records of them (a whole filing; or, while the filing's own
 * record is not among its rows, its amendments, which the loader merges
 * into the stored filing or keeps waiting for it), and loads those through
 * the ordinary import (importShardedItems: the same validation, merging,
 * rejects, warnings and change feed as any feed file). Then it clears the
 * pending marks of those filings. A step stopped before that is simply
 * done again: loading the same filing twice changes nothing.
 *
 * A filing's record is rebuilt from all its rows each time, so it is the
 * same whichever order, files or pulls its rows came in.
 */
import { and, eq, gt, inArray, sql } from "drizzle-orm";
import { D1_MAX_PARAMS, type Db } from "../../db/database.ts";
import { sourcePulls, sourceRows } from "../../db/schema.ts";
import { type ShardDatabases, shardDb } from "../../db/shards.ts";
import { completeBackfills } from "../backfills.ts";
import { emptySummary, type ImportSummary } from "../import.ts";
import { importShardedItems, recordShardedLoad, type ShardedOptions } from "../shardedImport.ts";
import { Unrecognised } from "./codes.ts";
import { assembledItem, type Source, type StagedRow, sourceSchema } from "./source.ts";

/** Filings assembled per step. */
const ASSEMBLE_GROUP = 500;

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `pending = 1` written out, so SQLite can use the partial index source_rows_pending. */
const isPending = sql`${sourceRows.pending} = 1`;

/** The first `limit` filings with pending rows after `after`, in order (the partial index, one range). */
async function pendingFilings(db: Db, source: Source, after: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectDistinct({ filing: sourceRows.filing })
    .from(sourceRows)
    .where(and(eq(sourceRows.source, source.id), isPending, gt(sourceRows.filing, after)))
    .orderBy(sourceRows.filing)
    .limit(limit);
  return rows.flatMap((r) => (r.filing === null ? [] : [r.filing]));
}

/** Every staged row of the filings `numbers`, by filing: one batch. */
async function rowsOf(db: Db, source: Source, numbers: string[], maxParams: number): Promise<Map<string, StagedRow[]>> {
  const statements = chunk(numbers, maxParams - 5).map((part) =>
    db
      .select()
      .from(sourceRows)
      .where(and(eq(sourceRows.source, source.id), inArray(sourceRows.filing, part))),
  );
  const out = new Map<string, StagedRow[]>();
  const [first, ...rest] = statements;
  if (!first) return out;
  for (const rows of await db.batch([first, ...rest])) {
    for (const r of rows) {
      if (r.filing === null) continue;
      const staged: StagedRow = {
        tab: r.tab,
        rowId: r.rowId,
        filing: r.filing,
        part: r.part,
        fields: JSON.parse(r.data) as Record<string, string>,
        file: r.file,
        line: r.line,
      };
      out.set(r.filing, [...(out.get(r.filing) ?? []), staged]);
    }
  }
  return out;
}

/** Clears the pending marks of the filings `numbers` (assembled and loaded now). */
async function clearPending(db: Db, source: Source, numbers: string[], maxParams: number) {
  const statements = chunk(numbers, maxParams - 5).map((part) =>
    db
      .update(sourceRows)
      .set({ pending: false })
      .where(and(eq(sourceRows.source, source.id), isPending, inArray(sourceRows.filing, part))),
  );
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

/** How many filings have pending rows: the work of the assembling steps (a load's progress). */
export async function filingsPending(db: Db, source: Source): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(distinct ${sourceRows.filing})` })
    .from(sourceRows)
    .where(and(eq(sourceRows.source, source.id), isPending));
  return Number(row?.n ?? 0);
}

/** How many of a source's rows wait for a row of another table (Colorado's parties for their transaction). */
export async function rowsWaiting(db: Db, source: Source): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(sourceRows)
    .where(and(eq(sourceRows.source, source.id), isPending, sql`${sourceRows.filing} is null`));
  return Number(row?.n ?? 0);
}

/** Where the first `limit` of those rows were read (file and line), and what they wait for (their part). */
export function rowsWaitingAt(db: Db, source: Source, limit: number) {
  return db
    .select({ tab: sourceRows.tab, file: sourceRows.file, line: sourceRows.line, part: sourceRows.part })
    .from(sourceRows)
    .where(and(eq(sourceRows.source, source.id), isPending, sql`${sourceRows.filing} is null`))
    .limit(limit);
}

export type AssembleOptions = Omit<ShardedOptions, "recordLoad" | "repeats" | "format" | "defaultState"> & {
  /** Code values the adapter did not know, counted here. */
  unrecognised?: Unrecognised;
  /** Bound parameters a statement may take (stage.ts, StageOptions.maxParams). */
  maxParams?: number;
};

/**
 * What a load of `source`'s register is called where it begins a backfill
 * (src/feed/backfills.ts): one name, by file or by pull, in-process or on
 * the platform, since every way assembles the same staged rows (the name
 * importShardedItems gave it before it was passed).
 */
const registerLoad = (source: Source) => `import ${source.id} register`;

/**
 * One step: assembles and loads the filings with pending rows after `after`
 * (the last filing of the step before; "" at first). Returns what it loaded,
 * how many filings it assembled and its last filing, or null when no
 * filing was pending.
 */
export async function assembleStep(
  shards: ShardDatabases,
  source: Source,
  after: string,
  options: AssembleOptions = {},
): Promise<{ summary: ImportSummary; last: string | null; filings: number }> {
  const db = shardDb(shards);
  const numbers = await pendingFilings(db, source, after, ASSEMBLE_GROUP);
  const last = numbers.at(-1);
  if (last === undefined) return { summary: emptySummary(), last: null, filings: 0 };
  const now = options.now ?? new Date();
  const { maxParams = D1_MAX_PARAMS, unrecognised = new Unrecognised(), ...importOptions } = options;
  const rows = await rowsOf(db, source, numbers, maxParams);
  const schema = sourceSchema(source, { now });
  async function* items() {
    for (const number of numbers) {
      for (const assembled of source.assemble(number, rows.get(number) ?? [], unrecognised)) {
        yield assembledItem(source, assembled, schema);
      }
    }
  }
  const summary = await importShardedItems(shards, `${source.id} register`, items(), {
    ...importOptions,
    source: registerLoad(source),
    now,
    // The load is recorded once, when every step is done (finishLoad).
    recordLoad: async () => {},
  });
  await clearPending(db, source, numbers, maxParams);
  return { summary, last, filings: numbers.length };
}

/**
 * The newest office date read for a source, moved forward to `newest` when
 * that is later: the state's data_through.
 */
export async function advanceThrough(db: Db, source: Source, newest: string | null): Promise<string | null> {
  if (newest !== null) {
    await db
      .insert(sourcePulls)
      .values({ source: source.id, through: newest })
      .onConflictDoUpdate({
        target: sourcePulls.source,
        set: {
          through: sql`case when ${sourcePulls.through} is null or excluded.through > ${sourcePulls.through} then excluded.through else ${sourcePulls.through} end`,
        },
      });
  }
  const [row] = await db
    .select({ through: sourcePulls.through })
    .from(sourcePulls)
    .where(eq(sourcePulls.source, source.id));
  return row?.through ?? null;
}

/**
 * Records a load of `source` in every shard (data_loads; its state's
 * state_loads: loaded now, its data through the newest office date read).
 */
export async function finishLoad(
  shards: ShardDatabases,
  source: Source,
  label: string,
  summary: ImportSummary,
  at: Date,
): Promise<void> {
  const through = await advanceThrough(shardDb(shards), source, null);
  // The steps ran to the end: the state's backfill, if the first began one, is complete.
  await completeBackfills(shards, [source.state], registerLoad(source), at);
  await recordShardedLoad(shards, label, summary.inserted + summary.updated, at, new Map([[source.state, through]]));
}
