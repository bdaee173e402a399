/**
 * Migration 0024 changes no answer. The same filings (and a day's delta
 * of amendments) are loaded into two databases: one as a database before
 * 0024 held them and then migrated in place, one loaded by today's
 * loaders. The first's counts by day are facet_days as the loaders before
 * 0024 wrote them: each stored filing's facet days (src/db/records.ts,
 * facetDayRows, which they counted from too), with running totals from the
 * newest day back, rebuilt into tallies by the migration; so the tallies
 * today's loaders keep a load at a time are checked against counts made
 * apart from them. Every endpoint answers the same in both, page by page,
 * and each count is the count of the filings themselves, at the day
 * boundaries included: a filing lapsing today (live until it ends, then no
 * longer), filed at midnight UTC today, filed at midnight on the recency
 * window's first day and a second before it (the bucket of older days),
 * one that never lapses. Co-borrowers are of debtors found together
 * (partners shared by two owners, one owner at two addresses).
 */
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/d1";
import { beforeAll, describe, expect, it } from "vitest";
import migration from "../migrations/0024_bounded_writes.sql?raw";
import lapseSets from "../migrations/0027_lapse_sets.sql?raw";
import unreadFacets from "../migrations/0028_drop_unread_facets.sql?raw";
import lenderLapses from "../migrations/0030_lender_lapse_facets.sql?raw";
import lenderIndustries from "../migrations/0032_lender_industry_facets.sql?raw";
import lenderTerms from "../migrations/0033_lender_industry_months.sql?raw";
import { createApp } from "../src/app.ts";
import { facetCutoffDay, insertFilings, recordLoad, upsertFilings } from "../src/db/load.ts";
import { type FilingRecord, facetDayRows, toRows } from "../src/db/records.ts";
import * as schema from "../src/db/schema.ts";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";
import { INDUSTRIES } from "../src/domain/industries.ts";
import { isoSeconds, recentWindowStart } from "../src/domain/time.ts";
import { dense } from "./dense.ts";
import { LOOKUPS, sampleFilings } from "./endpoints.ts";
import { filing, party, testAddress } from "./helpers.ts";

const DAY = 86_400_000;
const binding = (name: string) => Reflect.get(env, name) as D1Database;
const handle = (d1: D1Database) => drizzle(d1, { schema, casing: "snake_case" });

/** Loaded by today's loaders. */
const fresh = { ...env, DB: binding("DB_WHOLE"), SHARD_STATES: {} } as unknown as Env;
/** Loaded as a database before migration 0024 held it, then migrated. */
const migrated = { ...env, DB: binding("DB_16"), SHARD_STATES: {} } as unknown as Env;

const now = Date.now();
const today = new Date(now).toISOString().slice(0, 10);
const day = (days: number) => new Date(now + days * DAY).toISOString().slice(0, 10);
const midnight = (date: string) => `${date}T00:00:00Z`;
const windowStart = recentWindowStart(now);

/** Filings at the day boundaries, in CA, NV and WA, at two ZIP codes, some with several industries. */
function boundaries(): FilingRecord[] {
  const old = isoSeconds(now - 900 * DAY);
  const lapse = (number: string, days: number, more: Partial<FilingRecord> = {}) =>
    filing({ number, officeLapseDate: day(days), filedAt: old, ...more });
  const many = INDUSTRIES.slice(0, 4).map((label, i) => party(`Many Trades ${i} LLC`, { label, zip: "94110" }));
  // Two owners sharing 23 partners, each partner at one of three addresses, one owner at a second address too.
  const coBorrowed = (i: number) =>
    filing({
      number: `B-CO-${i}`,
      filedAt: isoSeconds(now - (i % 50) * DAY - i * 1000),
      debtors: [
        party(i % 2 ? "Pat Coborrow" : "Pam Coborrow", { type: "Individual", zip: "94110" }),
        party(`Partner ${i % 23} LLC`, { street1: `${i % 3} Elm St`, zip: "94110" }),
        ...(i % 5 === 0 ? [party("Pat Coborrow", { type: "Individual", zip: "94110", street1: "9 Oak St" })] : []),
      ],
    });
  return [
    lapse("B-TODAY", 0),
    lapse("B-TODAY-NV", 0, { state: "NV", debtors: [party("Desert Co", { label: "Manufacturing", state: "NV" })] }),
    lapse("B-YESTERDAY", -1),
    lapse("B-TOMORROW", 1, { debtors: many }),
    lapse("B-180", 180),
    lapse("B-181", 181),
    filing({ number: "B-MIDNIGHT", filedAt: midnight(today), debtors: many }),
    filing({ number: "B-WINDOW", filedAt: windowStart }),
    filing({ number: "B-BEFORE", filedAt: isoSeconds(Date.parse(windowStart) - 1000) }),
    filing({ number: "B-NEVER", kind: "transmitting_utility", filedAt: isoSeconds(now - 40 * DAY) }),
    filing({
      number: "B-ENDED",
      filedAt: isoSeconds(now - 20 * DAY),
      amendments: [{ number: "B-ENDED-T", filedAt: midnight(today), kind: "termination", description: "Termination" }],
    }),
    filing({
      number: "B-WA",
      state: "WA",
      filedAt: isoSeconds(now - 3 * DAY),
      debtors: [party("Rain Co", { zip: "98101" })],
    }),
    ...Array.from({ length: 120 }, (_, i) => coBorrowed(i)),
  ];
}

/** A day's delta over the data: amendments of old and recent filings, filings filed a day late, and two filed now. */
function delta(records: FilingRecord[]): FilingRecord[] {
  const kinds = [
    ["continuation", "Continuation"],
    ["termination", "Termination"],
    ["assignment", "Assignment"],
    ["collateral_change", "Amendment - Collateral"],
  ] as const;
  const amended = records.slice(0, 80).map((r, i) => {
    const [kind, description] = kinds[i % kinds.length]!;
    const securedParties =
      kind === "assignment" ? [...r.securedParties, party("Harbor Point Capital LLC")] : r.securedParties;
    return {
      ...r,
      securedParties,
      amendments: [...r.amendments, { number: `${r.number}-X`, filedAt: isoSeconds(now - DAY), kind, description }],
    };
  });
  const late = records.slice(100, 130).map((r, i) => ({
    ...r,
    number: `${r.number}-LATE`,
    filedAt: isoSeconds(now - (1 + (i % 4)) * DAY),
    amendments: [],
  }));
  // Filed now, after every day their state's facets had: a new last row of each group.
  const latest = ["WA", "NV"].map((state, i) =>
    filing({
      number: `B-${state}-NOW`,
      state,
      filedAt: isoSeconds(now),
      debtors: [party(`Latest ${i} Co`, { label: "Manufacturing", state, zip: state === "WA" ? "98101" : "89501" })],
    }),
  );
  return [...amended, ...late, ...latest];
}

/**
 * The database `d1`, holding `stored` (each filing as last loaded), as it
 * was before migration 0024, then migrated in place by it (and by 0027,
 * 0028 and 0030).
 */
async function migrateInPlace(d1: D1Database, stored: FilingRecord[]) {
  // facet_days as migration 0010 made it (0028 dropped it).
  await d1.batch([
    d1.prepare(`create table facet_days (scope text not null, place text not null, name text not null,
      facet text not null, day text not null, filings integer not null, running integer,
      primary key (scope, place, name, facet, day)) without rowid`),
    d1.prepare("create index facet_days_stale on facet_days (scope, place, name, facet) where running is null"),
  ]);
  // facet_days as the loaders before 0024 kept it: the stored filings' counts by day, the old bucket a day
  // ("0000-00-00"), none at zero, and running totals from the newest day back.
  // None of a lender's by lapse ("k"): migration 0030 builds them.
  const days = facetDayRows(
    stored.map((r, i) => toRows(r, i + 1)),
    facetCutoffDay(now),
  )
    .filter((d) => d.scope !== "k")
    .map((d) => [d.scope, d.place, d.name, d.facet, d.day, d.filings]);
  const PER_STATEMENT = 2_000;
  await d1.batch(
    Array.from({ length: Math.ceil(days.length / PER_STATEMENT) }, (_, i) =>
      d1
        .prepare(
          `insert into facet_days (scope, place, name, facet, day, filings, running)
            select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, 0 from json_each(?1)`,
        )
        .bind(JSON.stringify(days.slice(i * PER_STATEMENT, (i + 1) * PER_STATEMENT))),
    ),
  );
  // The loaders of both kept each facet's total in facet_counts: the same before and after, but for the
  // lenders' by lapse, which 0030 builds.
  await d1.prepare("delete from facet_counts where scope = 'k'").run();
  const unequal = await d1
    .prepare(`select * from facet_counts c where filings <> (select sum(d.filings) from facet_days d
      where d.scope = c.scope and d.place = c.place and d.name = c.name and d.facet = c.facet)`)
    .all();
  expect(unequal.results).toEqual([]);
  await d1.batch(
    [
      `update facet_days set running = r.running from (select scope, place, name, facet, day,
          sum(filings) over (partition by scope, place, name, facet order by day desc) as running from facet_days) r
        where facet_days.scope = r.scope and facet_days.place = r.place and facet_days.name = r.name
          and facet_days.facet = r.facet and facet_days.day = r.day`,
      "drop table facet_tallies",
      "drop table stale_tallies",
      "drop table lapse_set_changes",
      "drop table debtor_link_sets",
      "drop index debtor_links_recent",
      "alter table facet_counts drop column old",
      "alter table facet_counts drop column aged",
      "drop table tally_marks",
      "alter table state_summaries drop column live",
      "alter table state_summaries drop column lapsed",
      "alter table state_summaries drop column lapsed_on",
    ].map((q) => d1.prepare(q)),
  );
  // As wrangler applies them: split at drizzle-kit's breakpoints. Then 0027, which builds the lapse
  // facet's sets from the stored filings, as a database of 0024's tallies gets them, 0028, 0030, which builds
  // the lenders' facets by lapse day, and 0032 and 0033, which give them their filings by industry.
  for (const file of [migration, lapseSets, unreadFacets, lenderLapses, lenderIndustries, lenderTerms]) {
    const statements = file.split("--> statement-breakpoint").filter((q) => q.trim() !== "");
    await d1.batch(statements.map((q) => d1.prepare(q)));
  }
}

const records = [...Array.from({ length: 300 }, (_, i) => dense(i)), ...sampleFilings(now), ...boundaries()];

beforeAll(async () => {
  const metadata: KeyMetadata = {
    label: "tally equivalence",
    created: "2026-01-01",
    status: "active",
    rateLimit: "unmetered",
  };
  await env.API_KEYS.put(await hashKey(KEY), "", { metadata });
  const at = new Date(now);
  for (const d1 of [binding("DB_WHOLE"), binding("DB_16")]) {
    await applyD1Migrations(d1, env.TEST_MIGRATIONS);
    const db = handle(d1);
    await insertFilings(db, records, 1, undefined, at);
    await upsertFilings(db, delta(records), { now: at, record: false });
    await recordLoad(
      db,
      "tallies",
      records.length,
      at,
      new Map([
        ["CA", null],
        ["NV", null],
        ["WA", null],
      ]),
    );
  }
  const stored = new Map([...records, ...delta(records)].map((r) => [`${r.state}\u0000${r.number}`, r]));
  await migrateInPlace(binding("DB_16"), [...stored.values()]);
}, 120_000);

/** Every lookup's requests (test/endpoints.ts), the lapse windows at today's boundary and GET /states. */
const PATHS = [
  ...new Set([
    ...LOOKUPS.flatMap((e) => [...e.variants, ...e.sample, ...e.dense]),
    `/filings/lapsing?state=CA&from=${today}&to=${today}`,
    `/filings/lapsing?state=CA&from=${day(-1)}&to=${day(1)}`,
    `/filings/lapsing?state=CA&from=${day(1)}`,
    `/filings/lapsing?state=CA&from=${day(-400)}&to=${day(400)}`,
    `/filings/lapsing?state=CA&from=${today}&industry=${encodeURIComponent(INDUSTRIES.slice(0, 4).join(","))}`,
    `/filings/lapsing?state=NV&from=${today}&to=${today}&industry=Manufacturing`,
    "/filings/recent-by-state?state=WA",
    `/filings/lapsing?state=WA&to=${day(2000)}`,
    `/filings/lapsing?state=NV&to=${day(2000)}&industry=Manufacturing`,
    "/filings/recent-by-postal-code?postal_code=94110",
    `/filings/recent-by-postal-code?postal_code=94110&industry=${encodeURIComponent(INDUSTRIES.slice(0, 3).join(","))}`,
    "/secureds/recent-by-secured-party?name=harbor%20point&state=CA&envelope=a",
    "/debtors/associated/?name=Pat%20Coborrow&state=CA",
    "/debtors/associated/?name=P%20Coborrow&state=CA",
    "/debtors/associated/?name=Partner%201%20LLC&state=CA",
    "/states",
  ]),
  // A lapse list's count is in envelope A.
].flatMap((p) => (p.startsWith("/filings/lapsing") && !p.includes("envelope=") ? [p, `${p}&envelope=a`] : [p]));

/** What depends on when a load or a request ran, not on the data: when each change was recorded, a report's id and time (and its cursor, which holds them). */
const WHEN = new Set(["recorded_at", "generated_at"]);
const timeless = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(timeless)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([key]) => !WHEN.has(key) && !(key === "id" && "generated_at" in value))
            .filter(([key]) => !(key === "next_cursor" && "report" in value))
            .map(([key, v]) => [key, timeless(v)]),
        )
      : value;

/** A key of its own, unmetered: the comparison asks about seven hundred pages in a minute. */
const KEY = "tally-equivalence-key-0123456789";
/**
 * The address the comparison calls from, a new one every 50 requests: the
 * public lookup (/filings) is limited per address whatever key is sent, and
 * the comparison is not a test of that limit.
 */
const from = () => testAddress(Math.floor(asked / 50));
let asked = 0;

/** The answer's status and body, without what depends on when it ran. */
async function answer(layout: Env, path: string) {
  asked += 1;
  const res = await createApp().request(
    `${path}${path.includes("?") ? "&" : "?"}_asked=${asked}`,
    { headers: { "x-api-key": KEY, "cf-connecting-ip": from() } },
    layout,
  );
  const { response_metadata: _, ...body } = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body: timeless(body) as Record<string, unknown> };
}

describe("answers before and after migration 0024's tallies", () => {
  it.each(PATHS)("%s is the same, page by page", async (path) => {
    const sep = path.includes("?") ? "&" : "?";
    for (const page of path.includes("page=") || path === "/states" ? [""] : ["", `${sep}page=2`, `${sep}page=3`]) {
      const [before, after] = [await answer(migrated, `${path}${page}`), await answer(fresh, `${path}${page}`)];
      expect(after.status, `${path}${page}`).toBe(before.status);
      expect(after.body, `${path}${page}`).toEqual(before.body);
    }
  });

  /** A count of the filings themselves in the fresh database. */
  const counted = async (where: string) => {
    const row = await binding("DB_WHOLE")
      .prepare(`select count(*) as n from filings where ${where}`)
      .first<{ n: number }>();
    return Number(row?.n);
  };
  const total = async (path: string) =>
    ((await answer(fresh, path)).body.pagination as { total_results: number }).total_results;
  const todayNumber = Math.floor(now / DAY);

  it("counts a filing lapsing today in today's window, and among those live today: it stands through its lapse date", async () => {
    const lapsingToday = await counted(`state = 'CA' and terminated_at is null and lapse_date = ${todayNumber}`);
    expect(lapsingToday).toBeGreaterThan(0);
    expect(await total(`/filings/lapsing?state=CA&from=${today}&to=${today}&envelope=a`)).toBe(lapsingToday);
    const states = (await answer(fresh, "/states")).body.states as { state: string; active_filings: number }[];
    const live = await counted(
      `state = 'CA' and terminated_at is null and (lapse_date is null or lapse_date >= ${todayNumber})`,
    );
    expect(states.find((s) => s.state === "CA")?.active_filings).toBe(live);
  });

  it("counts those live today from a summary written on another day, the days between read from the tallies", async () => {
    const live = await counted(
      `state = 'CA' and terminated_at is null and (lapse_date is null or lapse_date >= ${todayNumber})`,
    );
    const d1 = binding("DB_WHOLE");
    for (const days of [-3, -1, 2]) {
      // The summary as the daily job would have written it that day: lapsed through the day before.
      await d1
        .prepare(
          `update state_summaries set lapsed_on = ?1, lapsed = (select count(*) from filings where state = 'CA'
            and terminated_at is null and lapse_date <= ?2) where state = 'CA'`,
        )
        .bind(day(days - 1), todayNumber + days - 1)
        .run();
      const states = (await answer(fresh, `/states?on=${days}`)).body.states as {
        state: string;
        active_filings: number;
      }[];
      expect(states.find((s) => s.state === "CA")?.active_filings, `${days}`).toBe(live);
    }
  });

  it("counts a filing filed at midnight UTC on the window's first day as recent, and one a second before as not", async () => {
    const since = Date.parse(windowStart) / 1000;
    expect(await total("/filings/recent-by-state?state=CA")).toBe(
      await counted(`state = 'CA' and filed_at >= ${since}`),
    );
    const ended = await counted(`state = 'CA' and terminated_at >= ${since}`);
    expect(await total("/filings/recently-terminated?state=CA")).toBe(ended);
  });
});
