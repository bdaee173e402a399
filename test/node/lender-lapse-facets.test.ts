/**
 * Migrations 0030 and 0033 build each lender name's months by lapse ("k",
 * src/db/schema.ts) and the shared prefixes', and their filings under each
 * industry and pair of industries the debtors hold, from stored rows, as
 * the loaders write them, so a database loaded before it counts a lapse list
 * by lender from them without a reload; and a load's changes merged into
 * those rows a batch at a time (src/db/tallies.ts) leave them as built
 * from the filings.
 */
import { describe, expect, it } from "vitest";
import { generateFilings } from "../../seed/generate.ts";
import { upsertFilings } from "../../src/db/load.ts";
import type { FilingRecord } from "../../src/db/records.ts";
import { isoSeconds } from "../../src/domain/time.ts";
import {
  LENDER_LAPSES,
  LENDER_TERMS,
  loadedBefore,
  loadedInGroups,
  runMigration,
  withoutLenderLapses,
  withTermination,
} from "./migrated.ts";

/** Lenders under one name and its branches on some filings; some filings terminated. */
const BRANCHES = ["Wells Fargo Bank", "Wells Fargo Equipment Finance", "Wells Fargo", "Wellspring Capital"];
function varied(record: FilingRecord, i: number): FilingRecord {
  if (i % 7 !== 0) return record;
  const lender = record.securedParties[0]!;
  const lenders = BRANCHES.slice(0, 2 + (i % 3)).map((name) => ({ ...lender, name }));
  return { ...record, securedParties: [...record.securedParties, ...lenders] };
}

const rows = (db: ReturnType<typeof loadedBefore>) => [
  db.prepare("select * from facet_counts where scope = 'k' order by place, name, facet").all(),
  db.prepare("select * from facet_tallies where scope = 'k' order by place, name, facet, day").all(),
];

describe("migrations 0030 and 0033", () => {
  it("builds the lenders' facets by lapse day, their shared prefixes', and both by industry, as the loaders write them", () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 2000, seed: 12, now })].map(varied);
    const db = loadedBefore(undefined, records, now);
    const written = rows(db);
    const [counts, tallies] = written as [
      { name: string; facet: string; filings: number }[],
      { day: string; facet: string; industries: string | null }[],
    ];
    // Each month under each industry and pair its filings' debtors hold, too: {"k":[filings, first, ...running]}.
    const terms = tallies.flatMap((t) =>
      Object.keys(JSON.parse(t.industries ?? "{}") as object).map((term) => [t.facet, term]),
    );
    expect(terms.some(([facet, term]) => facet === "+" && term?.length === 1)).toBe(true);
    expect(terms.some(([, term]) => term?.length === 2)).toBe(true);
    expect(counts.some((c) => c.name === "wells fargo" && c.facet === "+" && c.filings > 10)).toBe(true);
    expect(counts.some((c) => c.name === "wells" && c.facet === "+")).toBe(true);
    expect(tallies.filter((t) => t.day.startsWith("m")).length).toBeGreaterThan(100);
    // Terminated filings and those that never lapse have none: fewer filings than the live that lapse.
    const live = db
      .prepare("select count(*) as n from filings where terminated_at is null and lapse_date is not null")
      .get() as { n: number };
    const terminated = db.prepare("select count(*) as n from filings where terminated_at is not null").get() as {
      n: number;
    };
    expect(terminated.n).toBeGreaterThan(0);
    const named = db
      .prepare(
        "select count(*) as n from (select distinct filing_id, name_id from secured_parties where lapses_on is not null)",
      )
      .get() as { n: number };
    expect(named.n).toBeGreaterThanOrEqual(live.n);
    expect(counts.filter((c) => c.facet === "").reduce((n, c) => n + c.filings, 0)).toBe(named.n);
    // What a database before 0030 holds: no "k" facets.
    withoutLenderLapses(db);
    runMigration(db, LENDER_LAPSES);
    runMigration(db, LENDER_TERMS);
    expect(rows(db)).toEqual(written);
    expect(db.prepare("select name from sqlite_master where name = 'lender_lapses'").all()).toEqual([]);
    // Secured-party rows stored before 0031, or before db:rekey filled them, hold no industries: 0033 reads
    // their filings' debtors instead, and writes every month row again, whatever it held.
    db.exec("update secured_parties set debtor_industries = null");
    db.exec("update facet_tallies set industries = '{\"z\":[1,0]}' where scope = 'k'");
    runMigration(db, LENDER_TERMS);
    expect(rows(db)).toEqual(written);
    expect(db.prepare("select name from sqlite_master where name in ('lender_terms', 'term_months')").all()).toEqual(
      [],
    );
  });
});

describe("a lender's months by lapse", () => {
  it("merged by loads a group at a time, with terminations, continuations, moved lapse dates and debtors in other industries, are the months built from the filings", async () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 1200, seed: 13, now, state: "CA" })].map(varied);
    // Loaded in groups, so a month's row takes filings from several loads.
    const { db, local } = await loadedInGroups(records, now);
    const today = isoSeconds(now);
    const changed = records.slice(0, 240).map((r, i): FilingRecord => {
      if (i % 3 === 0) return withTermination(r, today);
      if (i % 3 === 1)
        return { ...r, officeLapseDate: `2030-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, "0")}` };
      return { ...r, securedParties: [...r.securedParties, { ...r.securedParties[0]!, name: "Wells Fargo Leasing" }] };
    });
    // Debtors in another industry, or in two: the month's filings move between its industry terms.
    const moved = records.slice(240, 360).map(
      (r, i): FilingRecord => ({
        ...r,
        debtors: r.debtors.map((d, j) => ({
          ...d,
          label: j === 0 ? (i % 2 ? "Agriculture & Farming" : "Energy & Utilities") : "Real Estate",
        })),
      }),
    );
    await upsertFilings(local, [...changed, ...moved], { now: new Date(now) });
    const merged = rows(db);
    expect((merged[1] as unknown[]).length).toBeGreaterThan(100);
    withoutLenderLapses(db);
    runMigration(db, LENDER_LAPSES);
    runMigration(db, LENDER_TERMS);
    expect(rows(db)).toEqual(merged);
  });
});
