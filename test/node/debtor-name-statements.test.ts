/**
 * The statements of the exact-name endpoints (src/queries/filings.ts,
 * byDebtorName; src/queries/debtors.ts; the lien report's batch,
 * src/report/query.ts) keep within D1's 100 bound parameters for any name:
 * each reading of a name (names.ts, debtorQuery) adds key spans, and each
 * span its parameters to every statement that matches keys. Local D1 takes
 * more, so only this test would notice.
 */
import type { SQLInputValue } from "node:sqlite";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/queries/db.ts";
import {
  addressStatements,
  associatedCandidates,
  associatedKeys,
  knownAddressCandidates,
} from "../../src/queries/debtors.ts";
import { byDebtorName, fetchCountedPage } from "../../src/queries/filings.ts";
import { readShardReport, reportStatements } from "../../src/report/query.ts";
import { migratedDatabase } from "./migrated.ts";

/** A handle over an empty migrated database that runs each statement, and each statement's parameter count. */
function countingDb() {
  const sqlite = migratedDatabase();
  const counts: number[] = [];
  const run = (sql: string, params: unknown[]) => {
    counts.push(params.length);
    const stmt = sqlite.prepare(sql);
    stmt.setReturnArrays(true);
    return { rows: stmt.all(...(params as SQLInputValue[])) };
  };
  const db = drizzle(
    async (sql, params) => run(sql, params),
    async (batch) => batch.map((q) => run(q.sql, q.params)),
    { casing: "snake_case" },
  ) as unknown as Db;
  return { db, counts };
}

/** Words that take each path of a name's readings: initials, particles, suffixes, a comma. */
const WORD = fc.constantFrom("j", "a", "b", "smith", "jones", "mary", "allen", "de", "la", "jr", "inc", "&");

describe("the exact-name statements", () => {
  it("bind at most 100 parameters whatever the name", async () => {
    const name = fc
      .tuple(fc.array(WORD, { minLength: 1, maxLength: 6 }), fc.nat({ max: 6 }))
      .map(([words, comma]) => [...words.slice(0, comma), comma > 0 ? "," : "", ...words.slice(comma)].join(" "));
    const { db, counts } = countingDb();
    await fc.assert(
      fc.asyncProperty(name, async (n) => {
        counts.length = 0;
        await fetchCountedPage(db, byDebtorName({ name: n, state: "CA" }), { page: 3, size: 5, offset: 10 });
        await knownAddressCandidates(db, addressStatements(n, 15));
        await associatedCandidates(db, { name: n, state: "CA" }, 45);
        await associatedKeys(db, { name: n, state: "CA" });
        // The lien report's batch, a later page in listed states (its page binds the position in each range).
        const after = { at: 1_700_000_000, st: "CA", num: "2024-000001" };
        await readShardReport(
          db,
          reportStatements({ name: n, states: ["CA", "TX"], today: "2026-11-30", size: 26, after }),
        );
        expect(counts.length).toBeGreaterThan(0);
        expect(Math.max(...counts)).toBeLessThanOrEqual(100);
      }),
      { numRuns: 200 },
    );
  });
});
