/**
 * Pulling an office's register from its Socrata portal, a page at a time.
 *
 * A pull reads each of the source's tables with the SODA API: `$where` (what
 * changed since the last pull, or what the office dated since a day or left
 * undated),
 * `$order=:id` (a unique order), `$limit` (up to 50,000) and `$offset`, and
 * nothing else of SoQL; a table is done at its first short page. Each page
 * after a table's first asks again for the row before it, which must be the
 * row the page before ended with: rows the office deletes during a pull
 * (Connecticut drops liens a year past lapse every day) move every later row
 * back, and the rows moved across the boundary would be skipped, unchanged,
 * so no later pull would ask for them. A table whose rows moved is read
 * again from its first page (rows read again unchanged write nothing), at
 * most MAX_RESTARTS times a run of the pull (resumePull). `SOCRATA_APP_TOKEN` goes as `X-App-Token`. A 429 or
 * 5xx answer (or a connection that breaks) is tried again, waiting as its
 * `Retry-After` says, a bounded number of times; then the pull fails saying
 * why. Each page is one step: its rows are staged (stage.ts), and the step
 * returns the position of the next page, which the caller saves
 * (source_pulls), so a stopped pull resumes at the page it was on. Once
 * every table is read, the pending filings are assembled and loaded
 * (assemble.ts).
 *
 * A later pull asks only for rows the portal changed since the last one
 * began (`:updated_at`, by the portal's own clock, less a day of overlap):
 * new records and rows the office changed in place (a lien marked
 * Released) both move it. Rows read again unchanged write nothing, and a
 * pull that finds nothing else writes nothing at all (endPull).
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/database.ts";
import { sourcePulls } from "../../db/schema.ts";
import { hash64 } from "../../domain/hash64.ts";
import { isoSeconds } from "../../domain/time.ts";
import type { ImportSummary } from "../import.ts";
import type { Reject } from "../read.ts";
import { advanceThrough } from "./assemble.ts";
import type { UnrecognisedCounts } from "./codes.ts";
import { type RowRead, sodaJsonRows } from "./soda.ts";
import type { Source } from "./source.ts";
import { addCounts, noCounts, type StageCounts, stageReads } from "./stage.ts";

/** The most rows SODA gives in one call. */
export const MAX_PAGE = 50_000;
/**
 * Rows a page on the platform (src/platform/pullSource.ts), by default and
 * at most: staging 5,000 rows is 460 to 520 D1 statements, within the 1,000
 * queries a Worker invocation may make (a page of MAX_PAGE is not).
 */
export const STEP_PAGE = 5_000;
/** Tries of one page before the pull fails. */
export const PAGE_TRIES = 5;
/** The longest wait between tries, whatever Retry-After asks. */
const MAX_WAIT_MS = 300_000;
/** How far before the last pull's start a later pull asks again: rows changed while it ran. */
const OVERLAP_MS = 86_400_000;
/** Times a pull reads a table again from its first page because its rows moved under it, before it fails. */
export const MAX_RESTARTS = 5;

/** Whether the page that led from `before` to `after` found the dataset's rows moved, so its table starts again. */
export const movedUnder = (before: PullPosition, after: PullPosition) => (after.restarts ?? 0) > (before.restarts ?? 0);

/** Where a pull is: what it asks for, and the next page. Small: it is saved after every page. */
export interface PullPosition {
  /** `--since`: the office's day (YYYY-MM-DD) it reads from, or null. */
  since: string | null;
  /** The portal time (ISO 8601 UTC) it reads rows changed after, or null for every row. */
  changedAfter: string | null;
  /** The portal's time at its first page (its Date header): where the next pull starts. */
  startedAt: string | null;
  /** The Workflow instance running the pull, while it runs (src/platform/pullSource.ts); none in-process. */
  by?: string;
  /** The table it is reading (source.tables' index; their count once all are read) and the row it is at. */
  table: number;
  offset: number;
  /** The row the last page ended with (rowMark), which the next page must begin after; none at a table's start. */
  last?: string | null;
  /** Tables read again from their first page in this run of the pull, because their rows moved (MAX_RESTARTS). */
  restarts?: number;
  pages: number;
  counts: StageCounts;
}

export interface PullOptions {
  /** The portal's address (default: the source's); a mirror or a test server. */
  portal?: string;
  /** Rows asked for per page (1 to 50,000). */
  pageSize?: number;
  /** SOCRATA_APP_TOKEN. */
  appToken?: string;
  fetch?: typeof fetch;
  /** Waits between tries (tests wait less). */
  sleep?: (ms: number) => Promise<void>;
  now?: Date;
  onReject?: (reject: Reject) => void | Promise<void>;
  /** Before a page is tried again: why, and how long it waits. */
  onRetry?: (message: string, waitMs: number) => void;
  /** Bound parameters a statement may take, and rows staged per batch (stage.ts, StageOptions). */
  maxParams?: number;
  groupSize?: number;
}

/** A pull that cannot go on: an answer that is no page, or tries exhausted. */
export class PullError extends Error {
  override name = "PullError";
}

const soqlTime = (iso: string) => iso.replace(/\.\d+Z$|Z$/, "");

/** The `$where` of a table for a pull's position: by the office's date from `since` (or none), or by change. */
function whereOf(position: PullPosition, dateColumn: string | undefined): string | null {
  if (position.since !== null) {
    const from = `'${position.since}T00:00:00'`;
    // A table without the office's date (Colorado's parties) is read by change: each row of a record
    // dated since then was made, so changed, no earlier.
    if (dateColumn === undefined) return `:updated_at >= ${from}`;
    // A row that leaves the date blank (a lien's second debtor) may be of a record dated since then: read
    // too, or no later pull asks for it (by change, it changed before this pull).
    return `(${dateColumn} >= ${from} OR ${dateColumn} IS NULL)`;
  }
  if (position.changedAfter !== null) return `:updated_at > '${soqlTime(position.changedAfter)}'`;
  return null;
}

/** The URL of the dataset of `source`'s table `index` on `portal` (where its rows are reported from). */
export function datasetUrl(source: Source, index: number, portal = source.portal): string {
  const table = source.tables[index];
  if (!table) throw new Error(`${source.id} has no table ${index}`);
  return `${portal.replace(/\/+$/, "")}/resource/${table.dataset}.json`;
}

/** Rows a page asks for before its own: the last row of the page before, when it is known. */
const overlapOf = (position: PullPosition) => (position.offset > 0 && position.last ? 1 : 0);

/** The URL of the page at `position` (with the row before it: overlapOf). */
function pageUrl(source: Source, position: PullPosition, options: PullOptions): string {
  const table = source.tables[position.table];
  const url = new URL(datasetUrl(source, position.table, options.portal));
  const where = whereOf(position, table?.dateColumn);
  if (where !== null) url.searchParams.set("$where", where);
  const overlap = overlapOf(position);
  url.searchParams.set("$order", ":id");
  url.searchParams.set("$limit", String(pageSizeOf(options) + overlap));
  url.searchParams.set("$offset", String(position.offset - overlap));
  return url.toString();
}

/** A row as a page boundary knows it: a hash of its text as the portal sent it. */
const rowMark = (read: RowRead) =>
  hash64(read.raw)
    .map((h) => h.toString(36))
    .join(".");

/**
 * The rows of a page that asked for the row before it (`overlap`): that row
 * checked against `last` and left out, `seen.moved` set (and nothing
 * yielded) when it is another; the page's last row kept in `seen.last`.
 */
async function* afterBoundary(
  reads: AsyncIterable<RowRead>,
  overlap: number,
  last: string | null | undefined,
  seen: { last: RowRead | null; moved: boolean },
) {
  let first = overlap > 0;
  for await (const read of reads) {
    if (first) {
      first = false;
      if (rowMark(read) !== last) {
        seen.moved = true;
        return;
      }
      continue;
    }
    seen.last = read;
    yield read;
  }
  // The row before the page is gone (deleted, or the table has fewer rows now): its rows moved.
  if (first) seen.moved = true;
}

const pageSizeOf = (options: PullOptions) => options.pageSize ?? MAX_PAGE;

/** Seconds or an HTTP date of a Retry-After header, as milliseconds from now; null without one. */
function retryAfter(header: string | null, now: number): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** What an error answer says: Socrata's JSON `message`, or the start of its text. */
async function messageOf(res: Response): Promise<string> {
  const text = (await res.text().catch(() => "")).slice(0, 2000);
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === "string") return body.message;
  } catch {
    // Not JSON: its text.
  }
  return text.replace(/\s+/g, " ").trim().slice(0, 200);
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The portal's time of an answer (its Date header), as ISO 8601 UTC; null without one. */
function portalTime(res: Response): string | null {
  const at = Date.parse(res.headers.get("date") ?? "");
  return Number.isNaN(at) ? null : isoSeconds(at);
}

/** A new pull: from `since` (the office's day) or, without it, whatever changed after the last pull began. */
export function newPull(since: string | null, changedSince: string | null): PullPosition {
  const changedAfter =
    since === null && changedSince !== null ? isoSeconds(Date.parse(changedSince) - OVERLAP_MS) : null;
  return { since, changedAfter, startedAt: null, table: 0, offset: 0, pages: 0, counts: noCounts() };
}

/**
 * The position a new run of a pull stopped part-way starts at: its page, with
 * a new run's MAX_RESTARTS. A run that ran out of them saved the page before
 * the rows moved, whose row before it is gone: kept, its used-up count would
 * fail every later run at its first request, where a fresh one reads the
 * table again from its start.
 */
export const resumePull = (held: PullPosition): PullPosition => ({ ...held, restarts: 0 });

/** Whether every table of a pull at `position` is read. */
export const pagesDone = (source: Source, position: PullPosition) => position.table >= source.tables.length;

/** What one try of a page gave: the position after it, or why to try again and how long to wait first. */
export type PageTry = { position: PullPosition } | { url: string; problem: string; waitMs: number };

/**
 * One try of the page at `position` (its `attempt`th): its rows staged and
 * the position after it; or, for a 429, a 5xx or a broken connection, why
 * and how long to wait before the next try (its Retry-After, else 1, 2, 4,
 * ... s by attempt, at most 5 minutes). Any other answer is a PullError.
 * Rejects are reported once the page is read whole, so a page tried again
 * reports none twice.
 */
export async function tryPage(
  db: Db,
  source: Source,
  position: PullPosition,
  attempt: number,
  options: PullOptions = {},
): Promise<PageTry> {
  const table = source.tables[position.table];
  if (!table) return { position };
  const doFetch = options.fetch ?? fetch;
  const url = pageUrl(source, position, options);
  const size = pageSizeOf(options);
  const file = datasetUrl(source, position.table, options.portal);
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.appToken) headers["X-App-Token"] = options.appToken;
  let waitMs = Math.min(60_000, 1000 * 2 ** (attempt - 1));
  let problem: string;
  try {
    const res = await doFetch(url, { headers });
    if (res.ok && res.body) {
      const rejects: Reject[] = [];
      const overlap = overlapOf(position);
      const seen = { last: null as RowRead | null, moved: false };
      const rows = afterBoundary(sodaJsonRows(res.body), overlap, position.last, seen);
      const counts = await stageReads(db, source, rows, {
        file,
        table,
        lineOf: (_, i) => position.offset + i + 1,
        now: options.now,
        maxParams: options.maxParams,
        groupSize: options.groupSize,
        onReject: (r) => void rejects.push(r),
      });
      const startedAt = position.startedAt ?? portalTime(res) ?? (options.now ?? new Date()).toISOString();
      if (seen.moved) {
        // Rows before the page moved under the pull: the table again from its start, or the pull fails.
        const restarts = (position.restarts ?? 0) + 1;
        if (restarts > MAX_RESTARTS) {
          throw new PullError(
            `${url}: the rows before this page moved (the office changed the dataset) ${restarts} times during the pull; run it again later`,
          );
        }
        await res.body.cancel().catch(() => {});
        return { position: { ...position, startedAt, offset: 0, last: null, restarts, pages: position.pages + 1 } };
      }
      for (const r of rejects) await options.onReject?.(r);
      await advanceThrough(db, source, counts.newest);
      const short = counts.rows < size;
      return {
        position: {
          ...position,
          startedAt,
          table: short ? position.table + 1 : position.table,
          offset: short ? 0 : position.offset + size,
          last: short || seen.last === null ? null : rowMark(seen.last),
          pages: position.pages + 1,
          counts: addCounts(position.counts, counts),
        },
      };
    }
    const message = await messageOf(res);
    problem = `HTTP ${res.status}${message ? `: ${message}` : ""}`;
    if (res.status !== 429 && res.status < 500) throw new PullError(`${url}: ${problem}`);
    waitMs = retryAfter(res.headers.get("retry-after"), Date.now()) ?? waitMs;
  } catch (err) {
    if (err instanceof PullError) throw err;
    // A connection refused or broken, or an answer cut short: tried again.
    problem = (err as Error).message;
  }
  return { url, problem, waitMs: Math.min(waitMs, MAX_WAIT_MS) };
}

/** Why a pull stops once a page's PAGE_TRIES have failed. */
export const gaveUp = (last: { url: string; problem: string }) =>
  `${last.url}: gave up after ${PAGE_TRIES} tries; the last: ${last.problem}`;

/**
 * One page of a pull: asks for it (trying again on 429, 5xx and broken
 * connections, waiting in between), stages its rows and returns the
 * position after it.
 */
export async function pullPage(
  db: Db,
  source: Source,
  position: PullPosition,
  options: PullOptions = {},
): Promise<PullPosition> {
  const sleep = options.sleep ?? wait;
  for (let attempt = 1; ; attempt++) {
    const tried = await tryPage(db, source, position, attempt, options);
    if ("position" in tried) return tried.position;
    if (attempt >= PAGE_TRIES) throw new PullError(gaveUp(tried));
    options.onRetry?.(`${tried.url}: ${tried.problem}`, tried.waitMs);
    await sleep(tried.waitMs);
  }
}

/** What a source's pulls have recorded (source_pulls), or none yet. */
export async function pullState(db: Db, source: Source) {
  const [row] = await db.select().from(sourcePulls).where(eq(sourcePulls.source, source.id));
  return {
    through: row?.through ?? null,
    changedSince: row?.changedSince ?? null,
    pulledAt: row?.pulledAt ?? null,
    position: row?.position ? (JSON.parse(row.position) as PullPosition) : null,
    /** The position as saved (a Workflow's claim compares it: src/platform/pullSource.ts). */
    positionText: row?.position ?? null,
  };
}

/** Saves where a pull is (after each page), so a stopped one resumes there. */
export async function savePosition(db: Db, source: Source, position: PullPosition): Promise<void> {
  const text = JSON.stringify(position);
  await db
    .insert(sourcePulls)
    .values({ source: source.id, position: text })
    .onConflictDoUpdate({ target: sourcePulls.source, set: { position: text } });
}

/** What a pull read and loaded, as saved with it. */
export interface PullSummary {
  /** The Workflow instance that ran it, if one did. */
  by?: string;
  rows: StageCounts;
  pages: number;
  filings: ImportSummary;
  unrecognised: UnrecognisedCounts;
}

/**
 * Whether a pull found anything: a row new or changed (staged), or a
 * filing assembled and loaded (rows a stopped pull staged). Rows read again
 * unchanged (the overlap of an incremental pull) and rejected rows are not.
 */
export const foundAnything = (summary: Pick<PullSummary, "rows" | "filings">) =>
  summary.rows.changed > 0 || summary.filings.read > 0;

/**
 * Ends a pull: no position kept; the next pull asks for what changed since
 * this one began. A pull of `--since` a day moves that start only when no
 * pull had set it (it read records dated since then, not every change).
 *
 * A pull that found nothing (foundAnything) writes nothing: it lets go of
 * the position it held while it ran, and leaves the rest as the last pull
 * that found something left it. The next pull asks again from that pull's
 * start, a window in which nothing had changed when this one looked, so it
 * reads what changed since and nothing is missed; `pulled_at` and the
 * summary still say when that pull ran and what it read. (The attempt
 * itself is the Workflow instance's, its output and its `pull_found_nothing`
 * log line, or the in-process pull's own output.) A row only this pull
 * made goes. Returns whether the pull found anything.
 */
export async function endPull(
  db: Db,
  source: Source,
  position: PullPosition,
  summary: PullSummary,
  at: Date,
): Promise<boolean> {
  if (!foundAnything(summary)) {
    await db.batch([
      db.update(sourcePulls).set({ position: null }).where(eq(sourcePulls.source, source.id)),
      db
        .delete(sourcePulls)
        .where(
          and(
            eq(sourcePulls.source, source.id),
            isNull(sourcePulls.through),
            isNull(sourcePulls.changedSince),
            isNull(sourcePulls.pulledAt),
            isNull(sourcePulls.summary),
          ),
        ),
    ]);
    return false;
  }
  const state = await pullState(db, source);
  const changedSince = position.since === null || state.changedSince === null ? position.startedAt : state.changedSince;
  const values = {
    changedSince,
    pulledAt: isoSeconds(at),
    position: null,
    summary: JSON.stringify(summary),
  };
  await db
    .insert(sourcePulls)
    .values({ source: source.id, ...values })
    .onConflictDoUpdate({ target: sourcePulls.source, set: values });
  return true;
}
