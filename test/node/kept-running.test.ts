/**
 * A lender month's running totals by day as its row keeps them
 * (src/db/tallies.ts, keptRunning): from its first day with a filing to the
 * day before its last, read back in SQL (runningOn) as every day's total.
 */
import { DatabaseSync } from "node:sqlite";
import { sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keptRunning, runningOn } from "../../src/db/tallies.ts";

const db = new DatabaseSync(":memory:");
const dialect = new SQLiteAsyncDialect({ casing: "snake_case" });
/** Each day's total (0 to 30) read back from `kept` by runningOn, as a lapse list's count reads it. */
const { sql: text } = dialect.sqlToQuery(
  sql`select ${runningOn(sql.raw("?1"), sql.raw("?2"), sql.raw("d.key"))} as n from json_each('${sql.raw(
    JSON.stringify(Array.from({ length: 31 }, (_, i) => i)),
  )}') d order by d.key`,
);
const readBack = (kept: string, total: number) =>
  (db.prepare(text).all(kept, total) as { n: number }[]).map((r) => Number(r.n));

/** The running totals of filings by day of month (31 days). */
const runningOf = (byDay: number[]) => {
  let total = 0;
  return byDay.map((n) => {
    total += n;
    return total;
  });
};

describe("a lender month's kept running totals", () => {
  it("read back as every day's total, whatever the days of its filings", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 4 }), { minLength: 31, maxLength: 31 }), (byDay) => {
        const running = runningOf(byDay);
        const total = running[30] ?? 0;
        expect(readBack(keptRunning(running, total), total)).toEqual(running);
      }),
      { numRuns: 300 },
    );
  });

  it("keep a month of one filing day in its index alone, and a busy month whole", () => {
    const one = runningOf(Array.from({ length: 31 }, (_, i) => (i === 16 ? 2 : 0)));
    expect(keptRunning(one, 2)).toBe("[16]");
    const first = runningOf(Array.from({ length: 31 }, (_, i) => (i === 0 ? 1 : 0)));
    expect(keptRunning(first, 1)).toBe("[0]");
    const two = runningOf(Array.from({ length: 31 }, (_, i) => (i === 4 || i === 7 ? 1 : 0)));
    expect(keptRunning(two, 2)).toBe("[4,1,1,1]");
    const every = runningOf(new Array(31).fill(1));
    expect(JSON.parse(keptRunning(every, 31))).toHaveLength(31);
  });
});
