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

const ZIP_REBUILD = "0022_zip_industry_facets.sql";

/** A debtor elsewhere (another ZIP5, or none) on some filings, so a filing's ZIP5s hold different industry sets. */
function withDebtorsElsewhere(record: FilingRecord, i: number): FilingRecord {
  if (i % 9 !== 0) return record;
  const first = record.debtors[0]!;
  const elsewhere = {
    ...first,
    name: `Branch ${i} LLC`,
    type: "Organization" as const,
    label: INDUSTRIES[i % INDUSTRIES.length]!,
    address: { ...first.address, zipCode: i % 2 === 0 ? "10001-0042" : null },
  };
  return { ...record, debtors: [...record.debtors, elsewhere] };
}

describe("migration 0022", () => {
  it("rebuilds a postal code's industry facets and running totals as the loaders write them", () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 2000, seed: 8, now })]
      .map(withManyIndustries)
      .map(withDebtorsElsewhere);
    const db = loadedBefore(ZIP_REBUILD, records, now); // up to the rebuild, which runs on data
    const written = facetRows(db);
    const zips = written[1]!.filter((f) => f.scope === "z");
    for (const name of ["e0", "e1", "e2", "e3", "i1", "i2"]) expect(zips.some((f) => f.name === name)).toBe(true);
    expect(zips.some((f) => f.place === "10001")).toBe(true);
    // What a database loaded before holds: a postal code's facets by label
    // set (name ""), beside "*".
    db.exec("delete from facet_days where scope = 'z' and name <> ''");
    db.exec("delete from facet_counts where scope = 'z' and name <> ''");
    const old = ["'z'", "'10001'", "''", "'Equipment|Manufacturing'"].join(", ");
    db.exec(`insert into facet_counts (scope, place, name, facet, filings) values (${old}, 7)`);
    db.exec(`insert into facet_days values (${old}, '0000-00-00', 7, 7)`);
    runMigration(db, ZIP_REBUILD);
    // The old facets stay for the Worker running until the deploy, which reads them.
    const oldFacets = "scope = 'z' and name = '' and facet <> '*'";
    expect(db.prepare(`select facet, filings, running from facet_days where ${oldFacets}`).all()).toEqual([
      { facet: "Equipment|Manufacturing", filings: 7, running: 7 },
    ]);
    db.exec(`delete from facet_days where ${oldFacets}`);
    db.exec(`delete from facet_counts where ${oldFacets}`);
    expect(facetRows(db)).toEqual(written);
  });
});
