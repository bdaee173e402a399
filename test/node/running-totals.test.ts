/**
 * A load's refresh of running totals (src/db/load.ts, refreshStatements)
 * writes only the days whose total moved: a filing replaced with the same
 * days (an amendment that changes no date) marks the days it counts on,
 * and the refresh writes those back and no other day of their facets.
 */
import type { StatementSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { localD1Database, StatementCache } from "../../scripts/localD1.ts";
import { generateFilings } from "../../seed/generate.ts";
import { refreshQueued, upsertFilings } from "../../src/db/load.ts";
import { migratedDatabase } from "./migrated.ts";

/** A statement cache that counts the rows each running-total update writes. */
class Counting extends StatementCache {
  readonly written: number[] = [];
  override get(text: string): StatementSync {
    const statement = super.get(text);
    if (!text.trimStart().startsWith('update "facet_days" set running')) return statement;
    const written = this.written;
    return new Proxy(statement, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (prop !== "run") return typeof value === "function" ? value.bind(target) : value;
        return (...args: Parameters<StatementSync["run"]>) => {
          const result = target.run(...args);
          written.push(Number(result.changes));
          return result;
        };
      },
    });
  }
}

describe("running totals", () => {
  it("are rewritten only on the days whose total moved", async () => {
    const db = migratedDatabase();
    const counting = new Counting(db, 256);
    const local = localD1Database(db, counting);
    const now = Date.now();
    const records = [...generateFilings({ filings: 1500, seed: 4, now, state: "CA" })];
    await upsertFilings(local, records, { now: new Date(now) });
    const totals = () => db.prepare("select * from facet_days order by scope, place, name, facet, day").all();
    const count = (where: string) =>
      (db.prepare(`select count(*) as n from facet_days ${where}`).get() as { n: number }).n;
    const before = totals();

    // A collateral amendment: the filing is replaced, its facets taken back and added again on the same days.
    const record = records.find((r) => r.amendments.length === 0 && r.debtors.some((d) => d.label !== null))!;
    const filedAt = new Date(now).toISOString().replace(/\.\d{3}Z$/, "Z");
    const amended = {
      ...record,
      amendments: [
        {
          number: `${record.number}-K`,
          filedAt,
          kind: "collateral_change" as const,
          description: "Amendment - Collateral",
        },
      ],
    };
    const summary = await upsertFilings(local, [amended], { now: new Date(now), refresh: false });
    expect(summary.updated).toBe(1);
    const marked = count("where running is null");
    const ofMarkedFacets = count(
      "where (scope, place, name, facet) in (select scope, place, name, facet from facet_days where running is null)",
    );
    expect(marked).toBeGreaterThan(5);
    // What rewriting every day of those facets would write: many times more.
    expect(ofMarkedFacets).toBeGreaterThan(10 * marked);
    counting.written.length = 0;
    await refreshQueued(local);
    expect(counting.written).toEqual([marked]);
    expect(totals()).toEqual(before);
  });
});
