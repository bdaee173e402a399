/**
 * GET /debtors/report: the lien report (docs/api/lien-report.md). One
 * request answers whether a borrower is encumbered, by whom and since when,
 * in every state searched, with the date each state's records run through
 * and the change-feed position to monitor from. Each shard holding a
 * searched state is read once (query.ts); the parts are combined
 * (combine.ts) and presented as JSON or CSV (present.ts).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { accepts } from "hono/accepts";
import { flat } from "../domain/flat.ts";
import { isoSeconds } from "../domain/time.ts";
import { requireApiKey } from "../http/auth.ts";
import { ANSWER_VARY } from "../http/caching.ts";
import type { AppEnv } from "../http/context.ts";
import { responseMetadata } from "../http/context.ts";
import { decodeCursor, encodeCursor } from "../http/cursor.ts";
import { shardReader } from "../http/d1.ts";
import { listOf } from "../http/paging.ts";
import { reportQuery } from "../http/params.ts";
import type { FilingWithParties } from "../queries/filings.ts";
import { debtorSearchRoute } from "../routes/debtors.ts";
import { withExamples } from "../routes/define.ts";
import { referenceLink } from "../routes/docs.ts";
import { bookmarkRequestHeader, errorResponses, reportHeaders } from "../routes/openapi.ts";
import { combine, positionAfter, reportOrder } from "./combine.ts";
import { firstActive, nameSearched, reportCsv, reportFiling, SEARCH_LOGIC } from "./present.ts";
import { readFilings, readNewestChange, readShardReport, reportStatements } from "./query.ts";
import { reportBody } from "./schemas.ts";

/** Where the API reference explains how names match: the debtor search, whose logic each state's search uses. */
const SEARCH_LOGIC_URL = referenceLink(debtorSearchRoute);

/** Filings on a page of the report. */
export const REPORT_PAGE_SIZE = 25;

export const reportRoute = createRoute({
  method: "get",
  path: "/debtors/report",
  operationId: "getLienReport",
  tags: ["Debtors"],
  summary: "Lien report: is this borrower encumbered, by whom, since when",
  description: `Every filing naming the debtor in the states searched (default: every state held), matched in each as [\`/debtors/search\`](${SEARCH_LOGIC_URL}) matches names, oldest first (filing time, then state, then number), ${REPORT_PAGE_SIZE} a page; with a summary over all of them (active, lapsed and terminated filings, active filings by kind and collateral category, the secured parties on active filings and their kinds, blanket liens, recent filings, the oldest active filing, the next lapse date), the date each state's records run through, and a change-feed cursor positioned at the report. A name that matches nothing is a report of zero filings. \`format=csv\` (or \`Accept: text/csv\`) answers the page as CSV.`,
  security: [{ ApiKey: [] }],
  middleware: [requireApiKey] as const,
  request: { query: withExamples(reportQuery, { name: "Harbor Manufacturing Inc" }) },
  parameters: [bookmarkRequestHeader],
  responses: {
    200: {
      description: "The report, and a page of its filings.",
      headers: reportHeaders,
      content: {
        "application/json": { schema: reportBody },
        "text/csv": {
          schema: z.string().openapi({
            description:
              "The page of filings as CSV (RFC 4180, UTF-8 with a byte order mark, CRLF): a header row, then one row per filing; lists joined with `; `.",
          }),
        },
      },
    },
    ...errorResponses,
  },
});

/** What a report's cursor carries: the report's identity, the changes position it was made at, and where its page resumes. */
const reportCursor = z.strictObject({
  id: z.string().uuid(),
  at: z.string(),
  p: z.record(z.string(), z.number().int().nonnegative()),
  after: z.strictObject({ at: z.number().int(), st: z.string().length(2), num: z.string().min(1) }),
});

/**
 * Whether the client asked for CSV: `format`, else the Accept header
 * negotiated by its quality values (RFC 9110), so `text/csv;q=0` or
 * `application/json, text/csv;q=0.1` is JSON; JSON when neither is preferred.
 */
function wantsCsv(c: Context<AppEnv>, format: "json" | "csv" | undefined): boolean {
  if (format !== undefined) return format === "csv";
  return accepts(c, { header: "Accept", supports: [JSON_TYPE, CSV_TYPE], default: JSON_TYPE }) === CSV_TYPE;
}
const JSON_TYPE = "application/json";
const CSV_TYPE = "text/csv";

export function registerReportRoute(app: OpenAPIHono<AppEnv>) {
  app.openapi(reportRoute, async (c) => {
    const q = c.req.valid("query");
    const list = listOf(reportRoute.path, { name: q.name, state: q.state });
    const resumed = q.cursor ? await decodeCursor(list, q.cursor, reportCursor) : undefined;
    const id = flat(resumed?.id ?? crypto.randomUUID());
    const generatedAt = resumed?.at ?? isoSeconds(c.get("now"));
    const today = generatedAt.slice(0, 10);

    const reader = shardReader(c);
    const partsOf = reader.partsOf ?? (() => reader.shards);
    // The shards of the states searched; with several states (or none) the
    // change feed is read on every shard, so its cursor holds every shard.
    const holding = q.state
      ? reader.shards.filter((s) => q.state?.some((st) => partsOf(st).includes(s)))
      : reader.shards;
    const others = q.state && q.state.length > 1 && !resumed ? reader.shards.filter((s) => !holding.includes(s)) : [];
    const statements = reportStatements({
      name: q.name,
      states: q.state,
      today,
      size: REPORT_PAGE_SIZE + 1,
      after: resumed?.after,
    });
    const [parts, newestElsewhere] = await Promise.all([
      reader.read(holding, (db) => readShardReport(db, statements)),
      reader.read(others, (db) => readNewestChange(db)),
    ]);
    const combined = combine(holding, parts, { today, listed: q.state, size: REPORT_PAGE_SIZE });

    // The oldest live filing: of the fresh digests, read with them; of states counted afresh, read now.
    let candidates: FilingWithParties[] = combined.firsts;
    if (combined.unfetched.size > 0) {
      const shards = [...combined.unfetched.keys()];
      const fetched = await reader.read(shards, (db, shard) => readFilings(db, combined.unfetched.get(shard) ?? []));
      candidates = [...candidates, ...fetched.flat()];
    }
    const first = candidates.sort(reportOrder)[0];

    const positions = resumed?.p ?? {
      ...Object.fromEntries(combined.newest),
      ...Object.fromEntries(others.map((s, i) => [s, newestElsewhere[i] ?? 0])),
    };
    // One state's cursor holds its shards only, and says so: the feed refuses it without that state.
    const [only, ...more] = q.state ?? [];
    const changesCursor = encodeCursor("changes", {
      p: positions,
      ...(only && more.length === 0 ? { f: { s: only } } : {}),
    });
    const last = combined.page.at(-1);
    const next =
      combined.more && last
        ? encodeCursor(list, { id, at: generatedAt, p: positions, after: positionAfter(last) })
        : undefined;

    c.header("Cache-Control", "private, no-store");
    c.header("x-report-id", id);
    c.header("x-report-generated-at", generatedAt);
    // The body depends on Accept when `format` is absent; on the key and bookmark as every answer does.
    c.header("Vary", `Accept, ${ANSWER_VARY}`);
    if (wantsCsv(c, q.format)) {
      if (next) {
        const url = new URL(c.req.url);
        url.searchParams.set("cursor", next);
        c.header("Link", `<${url.pathname}${url.search}>; rel="next"`);
      }
      return c.body(reportCsv(combined.page, today), 200, {
        "Content-Type": "text/csv; charset=utf-8; header=present",
      });
    }
    return c.json(
      {
        report: {
          id,
          generated_at: generatedAt,
          name: q.name,
          name_searched: nameSearched(q.name),
          search_logic: { description: SEARCH_LOGIC, url: SEARCH_LOGIC_URL },
          states: combined.states,
          changes_cursor: changesCursor,
        },
        summary: { ...combined.summary, first_active_filing: firstActive(first) },
        filings: combined.page.map((item) => reportFiling(item, today)),
        ...(next === undefined ? {} : { next_cursor: next }),
        response_metadata: responseMetadata(c),
      },
      200,
    );
  });
}
