/**
 * The change feed's daily job, run by the Worker's Cron Trigger
 * (wrangler.toml `[triggers]`, src/index.ts `scheduled`) on every shard:
 *
 * - Lapses. Dates pass without a load, so `filing.lapsed` is recorded here:
 *   for each live filing whose lapse date fell after the last day done
 *   (change_marks.lapses_through) and on or before yesterday (a filing
 *   stands through its lapse date: lapsedThrough, src/domain/lifecycle.ts),
 *   one change, in the same transaction that moves the mark to that day.
 *   The insert reads the mark itself, so two runs at once record each lapse once too (D1 has one
 *   writer: the second sees the first's mark). Running it twice finds
 *   nothing new; running it days late covers every day missed (as far back
 *   as retention keeps changes). The lapses due are read first, so each
 *   batch writes its lapses' name-index rows (schema.ts, changeNames) with
 *   them; a backlog of days is written a few thousand lapses (whole days)
 *   per batch, each moving the mark to its last day. The same batch
 *   rebuilds the lien report's digests of the lapsed filings' debtors, whose
 *   live counts held only until those lapse dates (src/db/reports.ts), and
 *   gives each lapsed filing its listed form, which the feed lists it from
 *   (src/db/listed.ts). Then each state's summary is written as of today, so
 *   GET /states counts its live filings from it alone
 *   (src/queries/states.ts), and the facets' days that left the recency
 *   window are counted aged, so a count since its start reads a facet's
 *   totals alone (src/db/tallies.ts).
 * - Lapse forms. The live filings that came within the lapse window since
 *   the last run (lapse days after change_marks.forms_through, through
 *   LAPSING_DAYS after today) get their listed form, so a lapse list reads a
 *   row a filing, not one a party (src/db/listed.ts). A first run (or one
 *   after a gap) gives the whole window's, FORM_DAYS lapse days per batch,
 *   each moving the mark; the next gives a day's.
 * - Retention. Changes recorded before the retention window are deleted,
 *   oldest first, a bounded number per statement, and the newest deleted
 *   becomes change_marks.purged_through: a cursor at or before it has lost
 *   changes (410 cursor_expired). Their name-index rows go with them, and
 *   the listed form of each filing whose last change kept they were, unless
 *   it is live and lapses within the window.
 */
import { and, eq, gt, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import { recordedNow } from "../db/changeRows.ts";
import type { Db } from "../db/database.ts";
import { lapseWindow } from "../db/listed.ts";
import { facetCutoffDay, stateSummaryStatement } from "../db/load.ts";
import { NAME_SLOTS_SQL, storedKeys } from "../db/nameIndex.ts";
import { digestStatements } from "../db/reports.ts";
import { changeMarks, changeNames, changes, debtorParties, facetCounts, filings } from "../db/schema.ts";
import { windowStatements } from "../db/tallies.ts";
import { CHANGE_TYPES } from "../domain/kinds.ts";
import { lapsedThrough } from "../domain/lifecycle.ts";
import { dayBefore, isoSeconds } from "../domain/time.ts";
import { listedFromTables } from "../queries/filings.ts";

/** The states a shard holds (one facet row each), so the lapse index is searched state by state. */
const heldStates = (db: Db) =>
  db
    .select({ state: facetCounts.place })
    .from(facetCounts)
    .where(and(eq(facetCounts.scope, "s"), eq(facetCounts.name, ""), eq(facetCounts.facet, "*")));

/** Days changes are kept unless CHANGE_RETENTION_DAYS says more. */
export const MIN_RETENTION_DAYS = 90;
/** Changes deleted per statement, and statements per run: a backlog clears over a few days. */
const PURGE_CHUNK = 10_000;
const PURGE_STATEMENTS = 20;

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** A day bound as the mark's column stores it (the day encoding, encodings.ts). */
const dayParam = (date: string) => sql.param(date, changeMarks.lapsesThrough);

/** CHANGE_RETENTION_DAYS as a number of days: at least MIN_RETENTION_DAYS (the feed's promise). */
export function retentionDays(text: string | undefined): number {
  const days = Number(text);
  return Number.isInteger(days) && days >= MIN_RETENTION_DAYS ? days : MIN_RETENTION_DAYS;
}

const LAPSED = CHANGE_TYPES.indexOf("filing.lapsed");

export interface DailyResult {
  /** Lapses recorded. */
  lapsed: number;
  /** Live filings lapsing within the window given their listed form. */
  formed: number;
  /** Changes past retention deleted. */
  purged: number;
}

/** The daily job on one shard (see above), as of `now`. */
export async function runDaily(db: Db, now: Date, retention: number): Promise<DailyResult> {
  const today = dayOf(now.getTime());
  // The last lapse date that has ended: a filing lapses when its lapse date is over (lapsedThrough).
  const ended = lapsedThrough(today);
  const oldest = dayOf(now.getTime() - retention * DAY_MS);
  // The last day done, read by the insert itself (a first run does the day
  // that ended last only), never further back than changes are kept.
  const before = dayBefore(ended);
  const after = sql`max(coalesce((select ${changeMarks.lapsesThrough} from ${changeMarks} where ${changeMarks.id} = 1), ${dayParam(before)}), ${dayParam(oldest)})`;
  const lapseAt = sql`${filings.lapseDate} * 86400`;
  const held = heldStates(db);
  const due = (through: string) =>
    and(
      sql`${filings.state} in ${held}`,
      sql`${filings.lapseDate} > ${after}`,
      lte(filings.lapseDate, through),
      isNull(filings.terminatedAt),
    );
  const order = [filings.lapseDate, filings.state, filings.number] as const;
  const candidates = await db
    .select({ id: filings.id, day: filings.lapseDate })
    .from(filings)
    .where(due(ended))
    .orderBy(...order);
  let lapsed = 0;
  const chunks = lapseChunks(candidates);
  for (const [i, { ids, through }] of chunks.entries()) {
    const inIds = sql`${filings.id} in (select value from json_each(${JSON.stringify(ids)}))`;
    const [inserted] = await db.batch([
      db.insert(changes).select(
        db
          .select({
            seq: sql`null`.as("seq"),
            state: filings.state,
            type: sql`${LAPSED}`.as("type"),
            filingId: filings.id,
            amendment: sql`null`.as("amendment"),
            amendmentKind: sql`null`.as("amendment_kind"),
            changedFields: sql`null`.as("changed_fields"),
            recordedAt: sql`${recordedNow}`.as("recorded_at"),
            occurredAt: sql`${lapseAt}`.as("occurred_at"),
            removedParties: sql`null`.as("removed_parties"),
          })
          .from(filings)
          .where(and(due(through), inIds))
          .orderBy(...order),
      ),
      lapseNames(db, await storedKeys(db, ids), ids.length),
      // The feed lists each from its listed form, made up from its tables (src/db/listed.ts).
      db
        .update(filings)
        .set({ listed: listedFromTables() })
        .where(and(due(through), inIds, isNull(filings.listed))),
      // The lien report's digests of the lapsed filings' debtors count them lapsed from now (src/db/reports.ts).
      ...digestStatements(
        db,
        (nameKey) =>
          sql`${nameKey} in (select ${debtorParties.nameKey} from ${debtorParties} where ${debtorParties.filingId} in (select value from json_each(${JSON.stringify(ids)})))`,
        today,
      ),
      markLapses(db, i === chunks.length - 1 ? ended : through),
    ]);
    lapsed += rowsChanged(inserted);
  }
  // GET /states counts the live filings lapsed by the day its summaries were written: today, from now on;
  // and a count since the recency window's start, the facets' filings on days before it (src/db/tallies.ts).
  const summaries = stateSummaryStatement(db, "all", now);
  const window = windowStatements(db, facetCutoffDay(now));
  await db.batch(chunks.length === 0 ? [markLapses(db, ended), summaries, ...window] : [summaries, ...window]);
  const formed = await giveLapseForms(db, now);
  return { lapsed, formed, purged: await purge(db, now, retention) };
}

/** Lapse days whose filings get their listed forms per batch: a first run gives the window's in a few. */
const FORM_DAYS = 30;

/**
 * Gives the live filings that came within the lapse window (lapseWindow)
 * since the mark their listed form (see above); returns how many. A filing
 * a load gave one keeps it (listed is not null).
 */
async function giveLapseForms(db: Db, now: Date): Promise<number> {
  const { through } = lapseWindow(now);
  const [mark] = await db.select({ through: changeMarks.formsThrough }).from(changeMarks).where(eq(changeMarks.id, 1));
  // Lapse days after `done` are still to do: never before today (a filing lapsed is listed from its change).
  const yesterday = dayOf(now.getTime() - DAY_MS);
  let done = mark?.through && mark.through > yesterday ? mark.through : yesterday;
  let formed = 0;
  while (done < through) {
    const last = dayOf(Math.min(Date.parse(done) + FORM_DAYS * DAY_MS, Date.parse(through)));
    // The forms and the mark in one transaction: a run stopped between batches resumes where it stopped.
    const [given] = await db.batch([
      lapseForms(db, done, last),
      db
        .insert(changeMarks)
        .values({ id: 1, lapsesThrough: null, purgedThrough: 0, formsThrough: last })
        .onConflictDoUpdate({ target: changeMarks.id, set: { formsThrough: sql`excluded.forms_through` } }),
    ]);
    formed += rowsChanged(given);
    done = last;
  }
  return formed;
}

/**
 * lapseForms for the whole lapse window as of `now`, in one statement: a
 * bulk load's last step (scripts/bulk/load.ts), on local SQLite. It moves
 * no mark, as a load gives forms without one: the daily job's first run
 * looks the window over again and finds them given.
 */
export function windowForms(db: Db, now: Date) {
  return lapseForms(db, dayOf(now.getTime() - DAY_MS), lapseWindow(now).through);
}

/** Gives the live filings lapsing after day `after` through `through` their listed form, those without one. */
function lapseForms(db: Db, after: string, through: string) {
  return db
    .update(filings)
    .set({ listed: listedFromTables() })
    .where(
      and(
        sql`${filings.state} in ${heldStates(db)}`,
        gt(filings.lapseDate, after),
        lte(filings.lapseDate, through),
        isNull(filings.terminatedAt),
        isNull(filings.listed),
      ),
    );
}

/**
 * The name-index rows (schema.ts, changeNames) of the lapses just recorded:
 * the changes of type filing.lapsed among the last `count` (at most `count`
 * were inserted by the statement before it in the batch), filed under their
 * filings' keys by filing id (one JSON parameter). A change already indexed
 * keeps its rows.
 */
function lapseNames(db: Db, keys: Map<number, number[]>, count: number) {
  const byFiling = JSON.stringify(Object.fromEntries(keys));
  return db
    .insert(changeNames)
    .select(
      sql`select c.seq * ${NAME_SLOTS_SQL} + k.key, k.value from ${changes} c, json_each(${byFiling}, '$."' || c.filing_id || '"') k
        where c.seq > (select max(${changes.seq}) from ${changes}) - ${count} and c.type = ${LAPSED}`,
    )
    .onConflictDoNothing();
}

/** Lapses written per batch, about: whole days, so a day with more is one batch. */
const LAPSE_BATCH = 2_000;

/** The lapses due (in lapse-day order) in batches of whole days, each with its last day. */
function lapseChunks(due: { id: number; day: string | null }[]): { ids: number[]; through: string }[] {
  const out: { ids: number[]; through: string }[] = [];
  let current: { ids: number[]; through: string } | undefined;
  for (const { id, day } of due) {
    if (day === null) continue;
    if (!current || (current.ids.length >= LAPSE_BATCH && day !== current.through)) {
      current = { ids: [], through: day };
      out.push(current);
    }
    current.ids.push(id);
    current.through = day;
  }
  return out;
}

/** Moves the last day whose lapses are recorded to `day`, never back. */
function markLapses(db: Db, day: string) {
  return (
    db
      .insert(changeMarks)
      .values({ id: 1, lapsesThrough: day, purgedThrough: 0 })
      // Never back: a run as of an earlier day (a delayed trigger) must not make the next run record again.
      .onConflictDoUpdate({
        target: changeMarks.id,
        set: { lapsesThrough: sql`max(excluded.lapses_through, coalesce(${changeMarks.lapsesThrough}, 0))` },
      })
  );
}

function rowsChanged(result: unknown): number {
  const meta = (result as { meta?: { changes?: number } } | undefined)?.meta;
  return meta?.changes ?? 0;
}

/** Deletes the changes recorded before the retention window; returns how many. */
async function purge(db: Db, now: Date, retention: number): Promise<number> {
  const cut = isoSeconds(now.getTime() - retention * DAY_MS);
  // recorded_at rises with seq (src/db/changeRows.ts, recordedNow): the newest change to purge is one seek.
  const [last] = await db
    .select({ seq: changes.seq })
    .from(changes)
    .where(sql`${changes.recordedAt} < ${Math.floor(Date.parse(cut) / 1000)}`)
    .orderBy(sql`${changes.recordedAt} desc`, sql`${changes.seq} desc`)
    .limit(1);
  if (!last) return 0;
  // A live filing lapsing within the window keeps its form for the lapse lists.
  const { from, through: lapsesBy } = lapseWindow(now);
  const outsideWindow = or(
    isNotNull(filings.terminatedAt),
    isNull(filings.lapseDate),
    lt(filings.lapseDate, from),
    gt(filings.lapseDate, lapsesBy),
  );
  let purged = 0;
  for (let i = 0; i < PURGE_STATEMENTS; i++) {
    // The same bound for the name index, first (it reads the oldest change still kept).
    const through = sql`min(${last.seq}, (select min(${changes.seq}) from ${changes}) + ${PURGE_CHUNK - 1})`;
    const [, , deleted] = await db.batch([
      // A filing's listed form goes with the last of its changes kept (src/db/listed.ts).
      db
        .update(filings)
        .set({ listed: null })
        .where(
          and(
            isNotNull(filings.listed),
            sql`${filings.id} in (select ${changes.filingId} from ${changes} where ${changes.seq} <= ${through})`,
            sql`${filings.id} not in (select ${changes.filingId} from ${changes} where ${changes.seq} > ${through})`,
            outsideWindow,
          ),
        ),
      db.delete(changeNames).where(lt(changeNames.id, sql`(${through} + 1) * ${NAME_SLOTS_SQL}`)),
      db.delete(changes).where(lte(changes.seq, through)),
      db
        .insert(changeMarks)
        .values({ id: 1, lapsesThrough: null, purgedThrough: last.seq })
        .onConflictDoUpdate({
          target: changeMarks.id,
          set: {
            purgedThrough: sql`max(${changeMarks.purgedThrough}, min(${last.seq}, coalesce((select min(${changes.seq}) from ${changes}), ${last.seq} + 1) - 1))`,
          },
        }),
    ]);
    const n = rowsChanged(deleted);
    purged += n;
    if (n < PURGE_CHUNK) break;
  }
  return purged;
}
