/**
 * The statements of the exact-name endpoints (src/queries/filings.ts,
 * byDebtorName; src/queries/debtors.ts; the lien report's batch,
 * src/report/query.ts) keep within D1's 100 bound parameters for any name:
 * each reading of a name (names.ts, debtorQuery) adds key spans, and each
 * span its parameters to every statement that matches keys. Local D1 takes
 * more, so only this test would notice.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addressStatements,
  associatedCandidates,
  associatedKeys,
  knownAddressCandidates,
} from "../../src/queries/debtors.ts";
import { byDebtorName, fetchCountedPage } from "../../src/queries/filings.ts";
import { readShardReport, reportStatements } from "../../src/report/query.ts";
import { countingDb } from "./migrated.ts";

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
