/**
 * Migration 0035 fills lender_industry_lapses (a lender's live filings by
 * each industry their debtors hold, src/db/schema.ts) from stored rows as
 * its triggers write it while rows are loaded, and the triggers keep it as
 * loads change filings: what they leave is what the fill builds afresh.
 */
import { readFileSync } from "node:fs";
import type { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { generateFilings } from "../../seed/generate.ts";
import { upsertFilings } from "../../src/db/load.ts";
import type { FilingRecord } from "../../src/db/records.ts";
import { INDUSTRIES } from "../../src/domain/industries.ts";
import { isoSeconds } from "../../src/domain/time.ts";
import { loadedBefore, loadedInGroups, runMigration, withTermination } from "./migrated.ts";

const MIGRATION = "0035_lender_industry_lapses.sql";
/** The migration's last statement: the table filled from the stored secured-party rows. */
const FILL = readFileSync(`migrations/${MIGRATION}`, "utf8").split("--> statement-breakpoint").at(-1) ?? "";

const rowsOf = (db: DatabaseSync) =>
  db
    .prepare(
      "select * from lender_industry_lapses order by filing_state, name_id, industry, lapses_on, filing_number, filing_id, position",
    )
    .all();

/** The table as the fill builds it from the rows stored now (the database's own is put back after). */
function rebuilt(db: DatabaseSync) {
  db.exec("savepoint rebuild");
  db.exec("delete from lender_industry_lapses");
  db.exec(FILL);
  const rows = rowsOf(db);
  db.exec("rollback to rebuild");
  db.exec("release rebuild");
  return rows;
}

/** Every ninth filing with debtors in three industries, every eleventh with a second lender. */
function varied(record: FilingRecord, i: number): FilingRecord {
  const debtor = record.debtors[0];
  const lender = record.securedParties[0];
  if (!debtor || !lender) return record;
  if (i % 9 === 0)
    return {
      ...record,
      debtors: ["Manufacturing", "Real Estate", "Equipment"].map((label, j) => ({
        ...debtor,
        name: `${debtor.name} ${j}`,
        label,
      })),
    };
  if (i % 11 === 0) return { ...record, securedParties: [lender, { ...lender, name: "Wells Fargo Leasing" }] };
  return record;
}

describe("migration 0035", () => {
  it("covers every industry of INDUSTRIES, as debtor_industries holds them (a bit each, in its order)", () => {
    // Its triggers and fill are SQL, written once: an industry added needs a migration that writes them again.
    const text = readFileSync(`migrations/${MIGRATION}`, "utf8");
    const codes = INDUSTRIES.map((_, i) => `(${i})`).join(", ");
    expect(text.split(`(VALUES ${codes}) AS b`).length - 1).toBe(5);
    expect(text).not.toContain(`(${INDUSTRIES.length})`);
    expect(text).toContain(`coalesce(old.debtor_industries, ${2 ** INDUSTRIES.length - 1})`);
  });

  it("fills the lenders' filings by industry from the stored rows as the triggers write them, from rows without their industries too", () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 1500, seed: 35, now })].map(varied);
    const written = rowsOf(loadedBefore(undefined, records, now));
    expect(written.length).toBeGreaterThan(1000);
    // A filing in three industries has a row under each.
    expect(
      (written as { industry: number; filing_id: number }[]).filter((r) => r.filing_id === 1).map((r) => r.industry),
    ).toHaveLength(3);
    // (loadedBefore makes the later tables the loaders name: this one is the migration's to make.)
    const before = loadedBefore(MIGRATION, records, now);
    before.exec("drop table lender_industry_lapses");
    runMigration(before, MIGRATION);
    expect(rowsOf(before)).toEqual(written);
    // Rows stored before 0031, or before db:rekey filled them: their filings' debtors say.
    const unfilled = loadedBefore(MIGRATION, records, now);
    unfilled.exec("drop table lender_industry_lapses");
    unfilled.exec("update secured_parties set debtor_industries = null");
    runMigration(unfilled, MIGRATION);
    expect(rowsOf(unfilled)).toEqual(written);
  });

  it("is kept by its triggers as loads terminate filings, move their lapse dates and change their debtors and lenders", async () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 1200, seed: 36, now, state: "CA" })].map(varied);
    const { db, local } = await loadedInGroups(records, now);
    expect(rowsOf(db)).toEqual(rebuilt(db));
    const today = isoSeconds(now);
    const changed = records.slice(0, 400).map((r, i): FilingRecord => {
      const debtor = r.debtors[0];
      const lender = r.securedParties[0];
      if (i % 4 === 0 || !debtor || !lender) return withTermination(r, today);
      if (i % 4 === 1)
        return { ...r, officeLapseDate: `2031-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, "0")}` };
      if (i % 4 === 2) return { ...r, debtors: [{ ...debtor, label: "Agriculture & Farming" }] };
      return { ...r, securedParties: [{ ...lender, name: "Harbor Point Capital" }] };
    });
    await upsertFilings(local, changed, { now: new Date(now) });
    const kept = rowsOf(db);
    expect(kept).toEqual(rebuilt(db));
    // The changes moved rows: terminated filings have none left.
    const terminated = db.prepare("select id from filings where terminated_at is not null").all() as { id: number }[];
    expect(terminated.length).toBeGreaterThan(50);
    const ids = new Set(terminated.map((t) => t.id));
    expect((kept as { filing_id: number }[]).filter((r) => ids.has(r.filing_id))).toEqual([]);
    // Rows without their set (as before 0031): their entries come from their debtors, and go whatever
    // those hold when the rows change or go.
    db.exec("update secured_parties set debtor_industries = null where filing_id % 2 = 0");
    expect(rowsOf(db)).toEqual(kept);
    const later = records.slice(400, 700).map((r) => withTermination(r, today, "T2"));
    await upsertFilings(local, later, { now: new Date(now) });
    expect(rowsOf(db)).toEqual(rebuilt(db));
    expect(rowsOf(db).length).toBeLessThan(kept.length);
  });
});
