/**
 * Monitoring: GET /filings/changes, the change feed clients poll
 * (docs/monitoring.md); GET /filings/lapsing, filings whose lapse date falls
 * in a window (docs/api/lapsing.md); GET /states, how current each state's
 * data is (docs/api/states.md).
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { MIN_RETENTION_DAYS } from "../changes/daily.ts";
import { feedPage, type Positions, readParts } from "../changes/feed.ts";
import type { ChangeFilter, Start } from "../changes/read.ts";
import { partsOf, shardsOf } from "../db/shards.ts";
import { LAPSING_DAYS } from "../domain/lifecycle.ts";
import { isCalendarDay, LAST_DAY } from "../domain/time.ts";
import type { AppEnv } from "../http/context.ts";
import { decodeCursor, encodeCursor } from "../http/cursor.ts";
import { shardReader, stateReader } from "../http/d1.ts";
import { ApiError, badParameters } from "../http/errors.ts";
import { countedMore, filingCursor, filingPosition, listOf, startOf } from "../http/paging.ts";
import { changesQuery, lapsingQuery, statesQuery } from "../http/params.ts";
import { changePageBody, lienPageA, lienPageB, statesBody } from "../http/present.ts";
import { changePage, lienPageAOrB, statesPage } from "../http/responses.ts";
import { onEveryShard } from "../queries/db.ts";
import { countedPageAcross, openPageAcross } from "../queries/fanout.ts";
import { type ListedFilingWithParties, type ListPosition, windowOf } from "../queries/filings.ts";
import { lapsePosition, lapsing } from "../queries/lapsing.ts";
import { combineParts, statesHeld, statesStatement } from "../queries/states.ts";
import { lookupRoute, PAGE_SIZE_A, PAGE_SIZE_B } from "./define.ts";
import { cursorExpiredResponse } from "./openapi.ts";

/** Seconds a client polling an empty, caught-up feed is asked to wait. */
export const EMPTY_POLL_SECONDS = 300;

export const changesRoute = lookupRoute({
  operationId: "listChanges",
  path: "/filings/changes",
  tags: ["Monitoring"],
  summary: "Changes to filings, oldest first (the change feed)",
  description: `What each load changed, and filings that lapsed, oldest first: new filings, continuations, terminations, assignments, reinstatements, other amendments, corrected facts and lapses, each with the filing as it stands now. Poll it: resume from \`next_cursor\`, which never skips a change. Changes are kept at least ${MIN_RETENTION_DAYS} days; without \`cursor\` or \`since\` the feed starts at the oldest change kept, and a cursor past retention is a 410 \`cursor_expired\`. A cursor handed out with \`state\` is read with that \`state\` only (otherwise a 400). An empty page says how long to wait in \`Retry-After\`; \`If-None-Match\` with the last ETag answers 304 while nothing changed.`,
  query: changesQuery,
  examples: {},
  schema: changePage,
  cache: "revalidate",
  moreErrors: cursorExpiredResponse,
});

export const lapsingRoute = lookupRoute({
  operationId: "listLapsingFilings",
  path: "/filings/lapsing",
  tags: ["Monitoring"],
  summary: "Filings lapsing in a window",
  description: `Live filings (not terminated) in \`state\` whose lapse date (the office's, or estimated) falls from \`from\` to \`to\`, inclusive (default: today through ${LAPSING_DAYS} days ahead), soonest first, then by number; optionally only those with a secured party of a name or a debtor in given industries. A continuation can be filed in the six months before a lapse date: a lender's reminder, and a refinancing lead list. Envelope B by default (it shows lapse dates); \`envelope=a\` for envelope A. A walk by \`next_cursor\` keeps the window of its first page, past midnight UTC too.`,
  query: lapsingQuery,
  examples: { state: "CA" },
  schema: lienPageAOrB,
});

export const statesRoute = lookupRoute({
  operationId: "listStates",
  path: "/states",
  tags: ["Monitoring"],
  summary: "How current each state's data is",
  description:
    "Every state the service holds: its filings, how many are live today, when it was last loaded, and the date its data runs through (the filing office's own as-of date where its feed states one, else the newest filing date loaded).",
  query: statesQuery,
  examples: {},
  schema: statesPage,
});

/** Where a lapsing page ended, and the window (from, to) it was of when either was a default. */
const windowDay = z.string().refine(isCalendarDay);
const lapsingPosition = filingPosition.extend({
  w: z
    .tuple([windowDay, windowDay])
    .refine(([from, to]) => from <= to)
    .optional(),
});

/**
 * What a change-feed cursor holds: each shard's position, and the filters
 * of the read that made it (`f`: state, types, debtor name, secured party),
 * none for a read of everything. A filtered page moves each position past
 * the changes it passed over, so the cursor is read with those filters (or
 * narrower): without them, those changes would be skipped; and a state's
 * cursor holds that state's shards only.
 */
const changesPosition = z.object({
  p: z.record(z.string(), z.number().int().nonnegative()),
  f: z
    .object({ s: z.string(), t: z.array(z.string()), d: z.string(), sp: z.string() })
    .partial()
    .optional(),
});
type ChangesFilters = NonNullable<z.infer<typeof changesPosition>["f"]>;

/** The filters a changes cursor keeps of its read (none: a read of every change). */
function filtersOf(q: ChangeFilter) {
  const f: ChangesFilters = {
    ...(q.state ? { s: q.state } : {}),
    ...(q.types?.length ? { t: [...q.types].sort() } : {}),
    ...(q.debtorName ? { d: q.debtorName } : {}),
    ...(q.securedParty ? { sp: q.securedParty } : {}),
  };
  return Object.keys(f).length > 0 ? { f } : {};
}

/** Each parameter the read `q` leaves wider than the cursor's filters `f` (a read that would skip changes), and why. */
function widened(f: ChangesFilters, q: ChangeFilter) {
  const out: { parameter: string; message: string }[] = [];
  const given = (value: string) => `must be ${value}, as it was when the cursor was handed out`;
  if (f.s !== undefined && q.state !== f.s) out.push({ parameter: "state", message: given(f.s) });
  if (f.t !== undefined && !(q.types?.length && q.types.every((t) => f.t?.includes(t)))) {
    out.push({
      parameter: "types",
      message: `must be ${f.t.join(",")} or some of them, as when the cursor was handed out`,
    });
  }
  if (f.d !== undefined && q.debtorName !== f.d) {
    out.push({ parameter: "debtor_name", message: given(JSON.stringify(f.d)) });
  }
  if (f.sp !== undefined && q.securedParty !== f.sp) {
    out.push({ parameter: "secured_party", message: given(JSON.stringify(f.sp)) });
  }
  return out;
}

export function registerMonitoringRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(changesRoute, async (c) => {
    const q = c.req.valid("query");
    const filter: ChangeFilter = {
      state: q.state,
      types: q.types,
      debtorName: q.debtor_name,
      securedParty: q.secured_party,
    };
    const cursor = q.cursor ? await decodeCursor("changes", q.cursor, changesPosition) : undefined;
    const wider = cursor?.f ? widened(cursor.f, filter) : [];
    if (wider.length > 0) throw badParameters(wider);
    const given: Positions | undefined = cursor?.p;
    const reader = shardReader(c);
    const all = reader.shards;
    // A state's shard, or each part of a split state, each with its own position in the cursor.
    const read = q.state ? partsOf(shardsOf(c.env).layout, q.state) : all;
    const startAt = (shard: string): Start => {
      const at = given?.[shard];
      if (at !== undefined) return { after: at };
      return q.since && !given ? { since: q.since } : "oldest";
    };
    const parts = await readParts(reader, read, filter, startAt, q.limit);
    if (given) {
      const lost = parts.some(({ shard, part }) => {
        const at = given[shard];
        return at !== undefined && at < part.purged;
      });
      if (lost) {
        throw new ApiError(
          "cursor_expired",
          "This cursor points at changes the feed no longer keeps. Start again with since (the recorded_at of the last change you handled) or without a cursor, and reconcile with the lookups.",
        );
      }
    }
    const positions: Positions = { ...given };
    for (const { shard, part } of parts) positions[shard] = part.start;
    const page = await feedPage(reader, parts, positions, q.limit);
    const next = encodeCursor("changes", { p: page.next, ...filtersOf(filter) });
    if (page.changes.length === 0 && !page.hasMore) c.header("Retry-After", String(EMPTY_POLL_SECONDS));
    return c.json(changePageBody(c, page, next), 200);
  });

  app.openapi(lapsingRoute, async (c) => {
    const q = c.req.valid("query");
    const today = c.get("now").toISOString().slice(0, 10);
    const list = listOf(lapsingRoute.path, q);
    const start = await startOf(list, q, lapsingPosition);
    const resumed = start.after;
    // A walk keeps the window its first page had: the defaults move at midnight UTC.
    const from = q.from ?? resumed?.w?.[0] ?? today;
    // The default end, at most the last day a date can be (a `from` near it must not run past year 9999).
    const defaultTo = () => {
      const end = new Date(Date.parse(`${from}T00:00:00Z`) + LAPSING_DAYS * 86_400_000).toISOString().slice(0, 10);
      return end.startsWith("+") ? LAST_DAY : end;
    };
    const to = q.to ?? resumed?.w?.[1] ?? defaultTo();
    if (to < from) {
      throw new ApiError("invalid_parameter", "Invalid query parameter: to.", {
        details: [{ parameter: "to", message: `must not be before from (${from})` }],
      });
    }
    const after = resumed ? { at: resumed.at, num: resumed.num } : undefined;
    const defaulted = q.from === undefined || q.to === undefined;
    const positionOf = (item: ListedFilingWithParties) => ({
      ...lapsePosition(item),
      ...(defaulted ? { w: [from, to] as [string, string] } : {}),
    });
    const query = { state: q.state, from, to, industries: q.industry, securedParty: q.secured_party };
    // The state's shard, or each part of a split state, merged soonest first.
    const reader = stateReader(c, q.state);
    const build = (after?: ListPosition) => lapsing({ ...query, after });
    if (q.envelope === "a") {
      const window = windowOf(start, PAGE_SIZE_A);
      const page = await countedPageAcross(reader, build, window, after);
      const next = filingCursor(list, window, countedMore(window, page.total), page.items, positionOf);
      return c.json(lienPageA(c, window, page, next), 200);
    }
    const window = windowOf(start, PAGE_SIZE_B);
    const options = { amendments: false, state: q.state };
    const page = await openPageAcross(reader, build, window, options, after);
    const next = filingCursor(list, window, page.hasMore, page.items, positionOf);
    return c.json(lienPageB(c, window, page, false, next), 200);
  });

  app.openapi(statesRoute, async (c) => {
    const today = c.get("now").toISOString().slice(0, 10);
    const statement = statesStatement(today);
    const parts = await onEveryShard(shardReader(c), (db) => statesHeld(db, statement));
    const states = combineParts(parts.flat()).sort((a, b) => (a.state < b.state ? -1 : a.state > b.state ? 1 : 0));
    return c.json(statesBody(c, states), 200);
  });
}
