/**
 * Every statement the service sends to D1, for every endpoint and filter
 * combination, is run through EXPLAIN QUERY PLAN: none may scan a whole
 * table (or a whole index) of filings, parties or amendments. So are the
 * statements a load and the daily job send to keep the counts and
 * co-debtor sets: a load reads the rows it changes by key.
 */
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/d1";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { runDaily } from "../src/changes/daily.ts";
import { upsertFilings } from "../src/db/load.ts";
import * as schema from "../src/db/schema.ts";
import { layoutOf } from "../src/db/shards.ts";
import { LOOKUPS } from "./endpoints.ts";
import { daysAgo, envWithShards, filing, get, load, party, registerKeys, shards, TEST_KEY } from "./helpers.ts";

interface Statement {
  sql: string;
  params: unknown[];
  /** The shard it ran on (EXPLAIN runs there). */
  d1?: D1Database;
}

/** A D1 binding (or session) that records each prepared statement and its parameters. */
function recording<T extends D1Database | D1DatabaseSession>(db: T, log: Statement[], shard?: D1Database): T {
  return new Proxy(db, {
    get(target, prop) {
      // The service reads through a D1 session (src/http/d1.ts): record its statements too.
      if (prop === "withSession") {
        return (arg: string) => recording((target as D1Database).withSession(arg), log, shard);
      }
      if (prop === "prepare") {
        return (sql: string) => {
          const entry: Statement = { sql, params: [], d1: shard };
          log.push(entry);
          const stmt = target.prepare(sql);
          return new Proxy(stmt, {
            get(s, p) {
              if (p === "bind") {
                return (...params: unknown[]) => {
                  entry.params = params;
                  return s.bind(...params);
                };
              }
              const v = Reflect.get(s, p);
              return typeof v === "function" ? v.bind(s) : v;
            },
          });
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/** Every endpoint's filter combinations (test/endpoints.ts). */
const REQUESTS = LOOKUPS.flatMap((e) => e.variants);

const TABLES =
  /\b(filings|debtor_parties|secured_parties|amendments|self|other|debtor_names|debtor_sound_keys|debtor_addresses|debtor_address_sets|debtor_links|debtor_link_sets|facet_counts|facet_days|facet_tallies|change_names|lenders|lender_names)\b/;

beforeAll(async () => {
  await registerKeys();
  // Enough for a second page of most variants' lists, so their continuations are planned too.
  await load([
    filing(),
    ...Array.from({ length: 11 }, (_, i) =>
      filing({
        filedAt: daysAgo(20 + i),
        debtors: [party("Acme Widgets LLC", { label: "Manufacturing", street1: `${i} Mill Rd` })],
        amendments: [{ number: `QP${i}-T`, filedAt: daysAgo(i), kind: "termination", description: "Termination" }],
      }),
    ),
  ]);
});

/** This file's run and a count, in the URLs it asks for (plans). */
const RUN = crypto.randomUUID();
let asked = 0;

/**
 * The statements `path` sends, each with its EXPLAIN QUERY PLAN lines; with
 * `layout`, under another SHARD_STATES, whose bindings are recorded too.
 */
async function plans(path: string, layout?: Record<string, string[]>): Promise<{ sql: string; details: string[] }[]> {
  const log: Statement[] = [];
  const others = layoutOf(layout).shards.map((name) => {
    const d1 = Reflect.get(env, name) as D1Database;
    return [name, recording(d1, log, d1)];
  });
  const vars = layout ? { ...Object.fromEntries(others), SHARD_STATES: layout } : {};
  // A URL not asked for before in this runtime: a public lookup's answer is cached for every caller.
  asked += 1;
  const fresh = `${path}${path.includes("?") ? "&" : "?"}_plans=${RUN}-${asked}`;
  const res = await createApp().request(
    fresh,
    { headers: { "x-api-key": TEST_KEY } },
    { ...envWithShards((d1) => recording(d1, log, d1)), ...vars },
  );
  expect(res.status, `${path}: ${res.status === 200 ? "" : await res.clone().text()}`).toBe(200);
  expect(log.length).toBeGreaterThan(0);
  return Promise.all(
    log.map(async ({ sql, params, d1 }) => {
      const plan = await (d1 ?? env.DB)
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      return { sql, details: plan.results.map((r) => r.detail) };
    }),
  );
}

/**
 * The table scans of a plan: SCANs of a table the statement reads, not of
 * a subquery it builds itself (a CO-ROUTINE or MATERIALIZE step), which
 * the lien report's page names `filings` so its party lookups read it.
 */
function tableScans(details: string[]): string[] {
  const built = new Set(details.flatMap((d) => /^(?:CO-ROUTINE|MATERIALIZE) (\S+)/.exec(d)?.[1] ?? []));
  return details.filter((d) => d.startsWith("SCAN") && TABLES.test(d) && !built.has(d.split(" ")[1] ?? ""));
}

describe("query plans", () => {
  it.each(REQUESTS)("%s reads only through indexes", async (path) => {
    for (const { sql, details } of await plans(path)) {
      const scans = tableScans(details);
      expect(scans, `${sql}\n${details.join("\n")}`).toEqual([]);
      // Similar-name probes keep their first rows in index order, whatever the shard: never sorted.
      if (path.startsWith("/debtors/search-similar")) {
        expect(details.filter((d) => d.includes("TEMP B-TREE"))).toEqual([]);
      }
    }
  });

  it("resumes every list that hands out a cursor through indexes, each range starting at the position", async () => {
    let resumed = 0;
    for (const variant of REQUESTS) {
      const path = variant.replace(/&page=\d+/, "");
      // The change feed's cursor replaces its start (`since`, or a cursor of its own): resumed from the path alone.
      if (path.includes("cursor=") || path.includes("since=")) continue;
      // A parameter of its own keeps this request out of the edge cache the other tests' requests fill.
      const page = (await (await get(`${path}&resumed=1`)).json()) as {
        pagination?: { next_cursor?: string };
        response_metadata: { next_cursor?: string };
      };
      const cursor = page.pagination?.next_cursor ?? page.response_metadata.next_cursor;
      if (cursor === undefined) continue;
      resumed += 1;
      const statements = await plans(`${path}&cursor=${encodeURIComponent(cursor)}`);
      for (const { sql, details } of statements) {
        const scans = tableScans(details);
        expect(scans, `${path}: ${sql}\n${details.join("\n")}`).toEqual([]);
      }
      // Rank-resumed lists (similar names, co-borrowers) read as any page does; the others seek the position:
      // below it newest first, above it for a lapse list (soonest first), past its seq in the change feed.
      if (/search-similar|associated/.test(path)) continue;
      const seeks = statements.flatMap((s) => s.details).filter((d) => /^SEARCH .*(\)[<>]\(|seq>\?|rowid>\?)/.test(d));
      expect(seeks, `${path}\n${statements.map((s) => s.details.join("\n")).join("\n\n")}`).not.toEqual([]);
    }
    expect(resumed).toBeGreaterThanOrEqual(10);
  });

  // The four-shard run plans it on its migrated shards; the one-shard run has only DB.
  it.skipIf(shards.layout.shards.length === 1)(
    "plans a split state's statements through indexes too: each part's page, a deep page's keys, co-borrowers' sets",
    async () => {
      // California over two databases (docs/sharding.md): each part is read as a shard of a merged list.
      const split = { DB_2: ["CA/1", "NY"], DB_3: ["CA/2", "TX"], DB_4: ["FL"] };
      const single = REQUESTS.filter((path) => /[?&]state=CA\b/.test(path) && !path.includes("cursor="));
      expect(single.length).toBeGreaterThan(20);
      const sent: string[] = [];
      for (const variant of single) {
        const path = variant.replace(/&page=\d+/, "");
        for (const page of ["", "&page=3"]) {
          for (const { sql, details } of await plans(`${path}${page}&split=1`, split)) {
            sent.push(sql);
            const scans = tableScans(details);
            expect(scans, `${path}${page}: ${sql}\n${details.join("\n")}`).toEqual([]);
          }
        }
      }
      // Statements a split state sends: a deep page's list keys (only it), and co-borrowers' sets.
      expect(sent.some((sql) => /^select at, num from/.test(sql))).toBe(true);
      expect(sent.some((sql) => sql.includes('cross join "debtor_link_sets"'))).toBe(true);
    },
  );

  it("reads of each party only the columns the answer shows, not its search keys or the filing's copies", async () => {
    const { sql } = (await plans("/filings/recently-terminated?state=CA")).find((s) => s.sql.includes("json_array("))!;
    const partyArrays = [...sql.matchAll(/json_array\(("(?:debtor|secured)_parties"[^)]*)\)/g)].map((m) => m[1]!);
    expect(partyArrays.length).toBeGreaterThan(0);
    for (const columns of partyArrays) {
      expect(columns).toContain('."name"');
      for (const hidden of [
        "name_key",
        "name_words",
        "address_key",
        "zip5",
        "filing_state",
        "filed_at",
        "filing_number",
      ]) {
        expect(columns).not.toContain(`."${hidden}"`);
      }
    }
  });

  it("reads known addresses debtor by debtor, each debtor's rows by its key in list order", async () => {
    const listing = (await plans("/debtors/addresses?name=John%20Smith")).filter((s) =>
      /from "debtor_address_sets" cross join "debtor_addresses"/.test(s.sql),
    );
    expect(listing.length).toBeGreaterThan(0);
    for (const { sql, details } of listing) {
      // The found debtors come first, from the sets' key; then each one's rows
      // by (name key, last used), where SQLite can stop at the page's last row.
      const outer = details.findIndex((d) => /^SEARCH debtor_address_sets USING PRIMARY KEY/.test(d));
      const inner = details.indexOf("SEARCH debtor_addresses USING PRIMARY KEY (name_key=?)");
      expect(outer, `${sql}\n${details.join("\n")}`).toBeGreaterThanOrEqual(0);
      expect(inner, `${sql}\n${details.join("\n")}`).toBeGreaterThan(outer);
    }
  });

  it("reads co-borrowers debtor by debtor, each debtor's newest links from their index, then those kept by key", async () => {
    const listing = (await plans("/debtors/associated/?name=John%20Smith&state=CA")).filter((s) =>
      /cross join "debtor_links" "kept"/.test(s.sql),
    );
    expect(listing.length).toBeGreaterThan(0);
    for (const { sql, details } of listing) {
      // The found debtors first, then each one's links by (name key, state) from the index alone, newest first.
      const outer = details.findIndex((d) => /^SEARCH debtor_names USING COVERING INDEX/.test(d));
      const inner = details.indexOf(
        "SEARCH kept USING COVERING INDEX debtor_links_recent (name_key=? AND filing_state=?)",
      );
      const kept = details.findIndex((d) =>
        /^SEARCH debtor_links USING PRIMARY KEY \(name_key=\? AND filing_state=\? AND other_key=\? AND other_address_key=\?\)/.test(
          d,
        ),
      );
      expect(outer, `${sql}\n${details.join("\n")}`).toBeGreaterThanOrEqual(0);
      expect(inner, `${sql}\n${details.join("\n")}`).toBeGreaterThan(outer);
      expect(kept, `${sql}\n${details.join("\n")}`).toBeGreaterThan(inner);
    }
  });

  it("writes a load's counts, tallies and co-debtor sets by key, and the daily job's too but for one pass over the totals", async () => {
    // A database of its own (a test-only binding), so the lists above keep their data.
    const d1 = Reflect.get(env, "DB_5") as D1Database;
    await applyD1Migrations(d1, env.TEST_MIGRATIONS);
    const log: Statement[] = [];
    const db = drizzle(recording(d1, log, d1), { schema, casing: "snake_case" });
    const lenders = ["Plan Lending LLC", "Plan Capital LLC"];
    const first = Array.from({ length: 40 }, (_, i) =>
      filing({
        state: "WY",
        number: `QPW${i}`,
        filedAt: daysAgo(i * 9),
        officeLapseDate: new Date(Date.now() + (i - 5) * 40 * 86_400_000).toISOString().slice(0, 10),
        debtors: [
          party(`Plan Debtor ${i % 6}`, { label: "Manufacturing", state: "WY", zip: "82001" }),
          party(`Plan Partner ${i % 4}`, { state: "WY", zip: "82001" }),
        ],
        // The first of its lender's alone.
        securedParties: [party(i === 0 ? "Plan Sole Lender LLC" : lenders[i % 2]!)],
      }),
    );
    await upsertFilings(db, first, {});
    log.length = 0;
    // Filings filed today and a few days late, continuations and terminations (lapse days moved), and an
    // assignment that takes a lender's last filing (its facets emptied), then the daily job two days running.
    const amended = first.slice(0, 12).map((r, i) => ({
      ...r,
      securedParties: i === 0 ? [party("Plan Assignee LLC")] : r.securedParties,
      amendments: [
        {
          number: `${r.number}-A`,
          filedAt: daysAgo(0),
          kind: i % 2 ? ("termination" as const) : ("continuation" as const),
          description: i % 2 ? "Termination" : "Continuation",
        },
      ],
    }));
    const added = [0, 3, 60].map((days, i) =>
      filing({
        state: "WY",
        number: `QPN${i}`,
        filedAt: daysAgo(days),
        debtors: [party(`Plan Debtor ${i}`, { label: "Manufacturing", state: "WY", zip: "82001" })],
      }),
    );
    await upsertFilings(db, [...amended, ...added], {});
    const loaded = log.length;
    await runDaily(db, new Date(), 90);
    await runDaily(db, new Date(Date.now() + 86_400_000), 90);
    const written = /^\s*(insert|update|delete)\b/i;
    const kept =
      /\b(facet_tallies|stale_tallies|tally_marks|facet_counts|state_summaries|debtor_links|debtor_link_sets)\b|^update "filings" set "listed" = '\['/;
    const checked = log.flatMap((s, i) =>
      written.test(s.sql) && kept.test(s.sql) ? [{ ...s, daily: i >= loaded }] : [],
    );
    const sent = new Set(checked.map((s) => s.sql));
    // Each kind of statement: tallies written and marked, rows taken to zero and emptied facets deleted,
    // the refresh, the summaries, the co-debtor sets, the daily job's mark and its listed forms.
    expect([...sent].some((sql) => sql.startsWith(`update "filings" set "listed" = '['`))).toBe(true);
    for (const table of [
      "facet_tallies",
      "stale_tallies",
      "facet_counts",
      "state_summaries",
      "debtor_link_sets",
      "tally_marks",
    ]) {
      expect(
        [...sent].some((sql) => sql.includes(`"${table}"`)),
        table,
      ).toBe(true);
    }
    expect([...sent].some((sql) => /^delete from "facet_tallies" where \(\(/.test(sql))).toBe(true);
    // What a plan may scan whole: a statement's own JSON or VALUES rows and subqueries, the marks a load
    // left (stale_tallies, "q": cleared by its refresh), the refresh queue, a state's few rows, a lender
    // month's 31 days (month_days) and its industry terms (held, terms: the row's and the change's); and, in the
    // daily job only, facet_counts, once for the days that left the recency window.
    const allowed =
      /^SCAN (j |json_each |(\d+ )?CONSTANT ROW|\d+-ROW VALUES|\(subquery-\d+\)|q$|stale_tallies$|chosen$|state_loads |state_backfills |month_days$|held$|terms$)/;
    const seen = new Set<string>();
    for (const { sql, params, daily } of checked) {
      if (seen.has(sql)) continue;
      seen.add(sql);
      const plan = await d1
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      const details = plan.results.map((r) => r.detail);
      const scans = details.filter(
        (d) => d.startsWith("SCAN") && !allowed.test(d) && !(daily && d === "SCAN facet_counts"),
      );
      expect(scans, `${sql}\n${details.join("\n")}`).toEqual([]);
    }
  });
});
