/**
 * Migration 0030 builds each lender name's facet by lapse day ("k",
 * src/db/schema.ts) and the shared prefixes' from stored rows, as the
 * loaders write them, so a database loaded before it counts a lapse list
 * by lender from them without a reload.
 */
import { describe, expect, it } from "vitest";
import { generateFilings } from "../../seed/generate.ts";
import type { FilingRecord } from "../../src/db/records.ts";
import { LENDER_LAPSES, loadedBefore, runMigration, withoutLenderLapses } from "./migrated.ts";

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

describe("migration 0030", () => {
  it("builds the lenders' facets by lapse day, and their shared prefixes', as the loaders write them", () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 2000, seed: 12, now })].map(varied);
    const db = loadedBefore(undefined, records, now);
    const written = rows(db);
    const [counts, tallies] = written as [{ name: string; facet: string; filings: number }[], { day: string }[]];
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
    expect(rows(db)).toEqual(written);
    expect(db.prepare("select name from sqlite_master where name = 'lender_lapses'").all()).toEqual([]);
  });
});
