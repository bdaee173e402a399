import { describe, expect, it } from "vitest";
import { generateFilings } from "../../seed/generate.ts";
import type { FilingRecord } from "../../src/db/records.ts";
import { INDUSTRIES } from "../../src/domain/industries.ts";
import { facetRows, loadedBefore, runMigration } from "./migrated.ts";

const REBUILD = "0012_industry_facets.sql";

/** Debtors in three to five industries, and in another label, on a few filings. */
function withManyIndustries(record: FilingRecord, i: number): FilingRecord {
  if (i % 40 !== 0) return record;
  const extra = Array.from({ length: 2 + (i % 3) }, (_, k) => ({
    ...record.debtors[0]!,
    name: `Affiliate ${i} ${k} LLC`,
    type: "Organization" as const,
    label: k === 0 ? "Space Mining" : INDUSTRIES[(i + k * 4) % INDUSTRIES.length]!,
  }));
  return { ...record, debtors: [...record.debtors, ...extra] };
}

describe("migration 0012", () => {
  it("rebuilds the facets and running totals the loaders write", () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 2000, seed: 5, now })].map(withManyIndustries);
    const db = loadedBefore(REBUILD, records, now); // up to the rebuild, which runs on data
    const written = facetRows(db);
    expect(written[0]!.some((f) => f.scope === "s" && f.name === "e3")).toBe(true);
    // What a database loaded before holds: a state's facets by label set,
    // and running totals summed the other way (here: wrong everywhere).
    db.exec(
      `insert into facet_counts (scope, place, name, facet, filings) values ('s', 'AK', '', 'Equipment|Manufacturing', 7)`,
    );
    db.exec(`insert into facet_days values ('s', 'AK', '', 'Equipment|Manufacturing', '0000-00-00', 7, 7)`);
    db.exec("update facet_days set running = -1");
    runMigration(db, REBUILD);
    expect(facetRows(db)).toEqual(written);
  });
});
