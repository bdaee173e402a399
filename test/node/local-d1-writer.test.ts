import { describe, expect, it } from "vitest";
import { refreshAll, writeFilings } from "../../scripts/bulk/load.ts";
import { generateFilings } from "../../seed/generate.ts";
import { soundKeyRows, toRows } from "../../src/db/records.ts";
import { filings } from "../../src/db/schema.ts";
import { migratedDatabase } from "./migrated.ts";

describe("the local D1 bulk writer", () => {
  const records = [...generateFilings({ filings: 3000, seed: 11, now: Date.parse("2026-06-01T00:00:00Z") })];
  const db = migratedDatabase();
  const progress: number[] = [];
  writeFilings(db, records, 1, (n) => progress.push(n), Date.parse("2026-06-01T00:00:00Z"));
  refreshAll(db);
  const count = (table: string) => Number((db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n);

  it("writes every row toRows() makes, with ids from the first", () => {
    const rows = records.map((r, i) => toRows(r, i + 1));
    expect(count("filings")).toBe(records.length);
    expect(count("debtor_parties")).toBe(rows.reduce((s, r) => s + r.debtors.length, 0));
    expect(count("secured_parties")).toBe(rows.reduce((s, r) => s + r.securedParties.length, 0));
    expect(count("amendments")).toBe(rows.reduce((s, r) => s + r.amendments.length, 0));
    const stored = db.prepare("select * from filings where id = 1234").get() as Record<string, unknown>;
    const expected = rows[1233]!.filing;
    expect(stored).toMatchObject({
      state: expected.state,
      number: expected.number,
      // Timestamps in their stored form (src/db/encodings.ts).
      filed_at: filings.filedAt.mapToDriverValue(expected.filedAt),
      lapse_date: expected.lapseDate === null ? null : filings.lapseDate.mapToDriverValue(expected.lapseDate),
      terminated_at:
        expected.terminatedAt === null ? null : filings.terminatedAt.mapToDriverValue(expected.terminatedAt),
    });
    expect(progress.at(-1)).toBe(records.length);
  });

  it("builds the similar-name index with one row per debtor and state, counting filings", () => {
    const rows = records.map((r, i) => toRows(r, i + 1));
    const perFiling = rows.flatMap((r) => [...new Set(r.debtors.map((d) => `${d.nameKey}|${d.filingState}`))]);
    expect(count("debtor_names")).toBe(new Set(perFiling).size);
    expect(count("debtor_sound_keys")).toBe(soundKeyRows(rows.flatMap((r) => r.debtors)).length);
    const total = Number((db.prepare("select sum(filing_count) as n from debtor_names").get() as { n: number }).n);
    expect(total).toBe(perFiling.length);
  });

  it("counts every filing once per state's exact industry set, with tallies from the oldest day up to each facet's total", () => {
    const sum = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
    expect(sum("select sum(filings) as n from facet_counts where scope = 's' and name like 'e%'")).toBe(records.length);
    expect(sum("select sum(filings) as n from facet_counts where scope = 's' and facet = '*'")).toBe(records.length);
    expect(sum("select count(*) as n from stale_tallies")).toBe(0);
    const mismatched = sum(`select count(*) as n from facet_counts c where scope <> 'k' and filings <> old + coalesce((
      select through from facet_tallies d where d.scope = c.scope and d.place = c.place and d.name = c.name
        and d.facet = c.facet order by day desc limit 1), 0)`);
    expect(mismatched).toBe(0);
    // A lender's by lapse is kept by month alone (src/db/tallies.ts): its months add up to its total, and
    // each month's running totals by day to its filings.
    const unequal = sum(`select count(*) as n from facet_counts c where scope = 'k' and filings <> (
      select sum(filings) from facet_tallies d where d.scope = c.scope and d.place = c.place and d.name = c.name
        and d.facet = c.facet)`);
    expect(unequal).toBe(0);
    expect(
      sum(`select count(*) as n from facet_tallies where scope = 'k' and (day not like 'm%' or (sets ->> 0) not between 0 and 30
        or json_array_length(sets) > 31)`),
    ).toBe(0);
    expect(sum("select count(*) as n from facet_counts where scope = 'k'")).toBeGreaterThan(0);
  });
});
