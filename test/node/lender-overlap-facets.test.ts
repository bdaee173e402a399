/**
 * Migration 0013 rebuilds the "o" facets (lender-name prefixes that two or
 * more of a filing's secured parties share) from stored rows, so data
 * loaded before the loaders wrote them counts a filing once per lender
 * search without a reload.
 */
import { describe, expect, it } from "vitest";
import { generateFilings } from "../../seed/generate.ts";
import type { FilingRecord } from "../../src/db/records.ts";
import { facetRows, loadedBefore, runMigration } from "./migrated.ts";

const REBUILD = "0013_lender_overlap_facets.sql";

/** Lenders under one name and its branches, and an individual debtor, on some filings. */
const BRANCHES = ["Wells Fargo Bank", "Wells Fargo Equipment Finance", "Wells Fargo", "Wellspring Capital"];
function withSharedPrefixes(record: FilingRecord, i: number): FilingRecord {
  if (i % 7 !== 0) return record;
  const lender = record.securedParties[0]!;
  const lenders = BRANCHES.slice(0, 2 + (i % 3)).map((name) => ({ ...lender, name }));
  const debtors =
    i % 2 === 0
      ? record.debtors
      : [...record.debtors, { ...record.debtors[0]!, name: "Pat Doe", type: "Individual" as const }];
  return { ...record, debtors, securedParties: [...record.securedParties, ...lenders] };
}

describe("migration 0013", () => {
  it("rebuilds the lender overlap facets and their running totals as the loaders write them", () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 1500, seed: 11, now })].map(withSharedPrefixes);
    const db = loadedBefore(REBUILD, records, now); // up to the rebuild, which runs on data
    const written = facetRows(db);
    const overlaps = written[1]!.filter((f) => f.scope === "o");
    expect(overlaps.some((f) => f.name === "wells fargo" && Number(f.filings) > 1)).toBe(true);
    expect(overlaps.some((f) => f.facet === "Individual|Organization")).toBe(true);
    // What a database loaded before holds: no "o" facets at all.
    db.exec("delete from facet_days where scope = 'o'");
    db.exec("delete from facet_counts where scope = 'o'");
    runMigration(db, REBUILD);
    expect(facetRows(db)).toEqual(written);
    // Run again on its own output, it changes nothing.
    runMigration(db, REBUILD);
    expect(facetRows(db)).toEqual(written);
  });
});
