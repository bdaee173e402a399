/**
 * The offices' open registers (src/feed/sources/) loaded through the import
 * as the portals give them: Connecticut's rows of record and party pairs,
 * Colorado's four tables in any order, Oregon's monthly files. Each
 * fixture holds the real rows of shared/sources and rows built from the
 * registers' columns. What the office published is what the API serves.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { shardDb } from "../src/db/shards.ts";
import { emptySummary, sumOf } from "../src/feed/import.ts";
import type { Reject, Warning } from "../src/feed/read.ts";
import { advanceThrough, assembleStep, finishLoad, rowsWaiting } from "../src/feed/sources/assemble.ts";
import { Unrecognised } from "../src/feed/sources/codes.ts";
import { SOURCES } from "../src/feed/sources/registry.ts";
import type { Source } from "../src/feed/sources/source.ts";
import { stageFile } from "../src/feed/sources/stage.ts";
import type { Body } from "./bodies.ts";
import { counts, emptyDatabase, fresh, readCount, stream } from "./feeds.ts";
import coCollateral from "./fixtures/sources/co-collateral.json?raw";
import coDebtors from "./fixtures/sources/co-debtors.json?raw";
import coSecured from "./fixtures/sources/co-secured.json?raw";
import coTransactions from "./fixtures/sources/co-transactions.csv?raw";
import ctJson from "./fixtures/sources/ct.json?raw";
import ctExport from "./fixtures/sources/ct-export.csv?raw";
import orJanuary from "./fixtures/sources/or-2026-01.json?raw";
import orFebruary from "./fixtures/sources/or-2026-02.json?raw";
import { get, getJson, registerKeys, shardDatabases, testAddress } from "./helpers.ts";

const db = shardDb(shardDatabases);

/** Stages `files` (name and text) of `source`, assembles and loads what changed, as `npm run import -- --source` does. */
async function loadSource(source: Source, files: [string, string][]) {
  const rejects: Reject[] = [];
  const warnings: Warning[] = [];
  const unrecognised = new Unrecognised();
  const rows = [];
  for (const [file, text] of files) {
    const staged = await stageFile(db, source, file, stream(text), { onReject: (r) => void rejects.push(r) });
    rows.push(staged);
    await advanceThrough(db, source, staged.newest);
  }
  let summary = emptySummary();
  for (let after = ""; ; ) {
    const step = await assembleStep(shardDatabases, source, after, {
      unrecognised,
      onReject: (r) => void rejects.push(r),
      onWarning: (w) => void warnings.push(w),
    });
    if (step.last === null) break;
    after = step.last;
    summary = sumOf(summary, step.summary);
  }
  await finishLoad(shardDatabases, source, `test ${source.id}`, summary, new Date());
  return { rows, summary, rejects, warnings, unrecognised: unrecognised.toJSON() };
}

/** The public lookup's filing, which the test expects to be there. */
async function lookup(number: string, state: string) {
  const res = await get(fresh(`/filings?initial_financing_number=${encodeURIComponent(number)}&state=${state}`), null, {
    headers: { "cf-connecting-ip": testAddress(readCount()) },
  });
  expect(res.status).toBe(200);
  const [filing] = (await res.json<Body<"/filings">>()).ucc_liens;
  if (!filing) throw new Error(`no filing ${state} ${number}`);
  return filing;
}

const numbersOf = (name: string, state: string) =>
  getJson(fresh(`/debtors/search?name=${encodeURIComponent(name)}&state=${state}`) as "/debtors/search").then((b) =>
    b.ucc_liens.map((l) => l.initial_financing_number),
  );

beforeAll(async () => {
  await registerKeys();
  await emptyDatabase();
});

describe("Connecticut's register (data.ct.gov xfev-8smz)", () => {
  let ct: Awaited<ReturnType<typeof loadSource>>;
  beforeAll(async () => {
    ct = await loadSource(SOURCES.ct, [["xfev-8smz.json", ctJson]]);
  });

  it("assembles each lien from its rows: one filing per lien, its other records its amendments", () => {
    // 17 rows: a row given twice is staged once; a row naming no filing is rejected.
    expect(ct.rows[0]).toMatchObject({ rows: 17, changed: 15, rejected: 1 });
    expect(ct.summary).toEqual(counts({ read: 11, inserted: 9, rejected: 1, warned: 3, amendments: 1, pending: 1 }));
    expect(ct.rejects.map((r) => r.reason)).toEqual([
      "id_lien_flng_nbr and id_ucc_flng_nbr: missing: the row names no filing",
      "debtor_nm_bus or debtor_nm_last: must name at least one debtor with a name",
    ]);
    // The rejected filing's rows, as a JSON array the importer reads back.
    expect(JSON.parse(ct.rejects[1]!.raw)).toEqual([expect.objectContaining({ id_lien_flng_nbr: "0005300005" })]);
  });

  it("serves the real row as the office recorded it", async () => {
    expect(await lookup("0005229652", "CT")).toMatchObject({
      initial_financing_date: "2024-07-19T00:00:00Z",
      filing_kind: "standard",
      estimated_lien_lapse_date: "2029-07-19",
      lapse_date_source: "office",
      filing_office: "Connecticut Secretary of the State",
      involved_parties: {
        debtor_parties: [
          expect.objectContaining({
            name: "CONSTITUTION SURGERY CENTER EAST, LLC",
            address: expect.objectContaining({ street1: "140 CROSS RD", city: "WATERFORD", zip_code: "06385" }),
          }),
        ],
        secured_parties: [expect.objectContaining({ name: "DE LAGE LANDEN FINANCIAL SERVICES, INC." })],
      },
    });
  });

  it("lists every debtor of a lien's rows, an amendment's too, and finds individuals by the exact-name rule", async () => {
    const lien = await lookup("0003252371", "CT");
    expect(lien.involved_parties.debtor_parties.map((d) => d.name)).toEqual([
      "ROWLEY, DAVID JR",
      "ROWLEY, MONIQUE ANN",
      "ROWLEY FARM SUPPLY LLC",
    ]);
    expect(lien.involved_parties.secured_parties).toHaveLength(1);
    expect(lien.amendments).toEqual([
      expect.objectContaining({
        amendment_financing_number: "0003387758",
        amendment_financing_type_description: "AMENDMENT",
      }),
    ]);
    expect(await numbersOf("Monique Rowley", "CT")).toEqual(["0003252371"]);
    expect(await numbersOf("David Rowley Jr", "CT")).toEqual(["0003252371"]);
    // A name filed as a person and as a business is found as either.
    expect(await numbersOf("Leah Nichols", "CT")).toEqual(["0005300004"]);
    expect(await numbersOf("Leah Nichols Design", "CT")).toEqual(["0005300004"]);
  });

  it("reads lien types as filing kinds, and 9999-12-31 as a lien that does not lapse", async () => {
    expect(await lookup("0005300001", "CT")).toMatchObject({ filing_kind: "vessel_lien" });
    expect(await lookup("0005300002", "CT")).toMatchObject({
      filing_kind: "other_lien",
      estimated_lien_lapse_date: null,
      lapse_date_source: "office",
      estimated_lien_status: "Active",
    });
    // Its own number missing from the lien column: a lien's own record is its own filing.
    expect(await lookup("0005300004", "CT")).toMatchObject({ filing_kind: "judgment_lien" });
    // A lien type not known: its words read (as a lien), noted, and counted.
    expect(await lookup("0005300003", "CT")).toMatchObject({ filing_kind: "other_lien" });
    expect(ct.warnings.find((w) => w.filing === "CT 0005300003")?.reason).toBe(
      'line 219 tx_lien_descript: "AIRCRAFT" is not a lien type known here: read as other_lien',
    );
    expect(ct.unrecognised).toEqual({ cd_flng_type: { CONTINUATION: 1 }, tx_lien_descript: { AIRCRAFT: 1 } });
  });

  it("terminates a released lien: by its release record, or by its Released status when no release record is listed", async () => {
    expect(await lookup("0003304375", "CT")).toMatchObject({
      filing_kind: "federal_tax_lien",
      estimated_lien_status: "Terminated",
      amendments: [
        expect.objectContaining({ amendment_financing_number: "0005009299", amendment_kind: "termination" }),
      ],
    });
    expect(await lookup("0004410021", "CT")).toMatchObject({
      filing_kind: "state_tax_lien",
      estimated_lien_status: "Terminated",
      amendments: [
        expect.objectContaining({
          amendment_financing_number: "0004410021-RELEASED",
          amendment_financing_type_description: "Lien status: Released",
          amendment_kind: "termination",
        }),
      ],
    });
  });

  it("keeps an amendment whose lien the register does not list until the lien arrives", () => {
    expect(ct.warnings.find((w) => w.amendment === "0005009262")).toMatchObject({ filing: "CT 0003372317" });
  });

  it("reads the whole export (display names, MM/DD/YYYY) as the same rows: nothing changes", async () => {
    const again = await loadSource(SOURCES.ct, [["rows.csv", ctExport]]);
    expect(again.rows[0]).toMatchObject({ rows: 17, changed: 0, rejected: 1 });
    expect(again.summary).toEqual(counts({}));
  });

  it("catches a lien the office marks Released in place, and records its termination", async () => {
    const released = ctJson.replaceAll(
      '"lien_status":"Active"\n,"cd_flng_type":"ORIG FIN STMT"\n,"tx_lien_descript":"OFS"\n,"debtor_nm_bus":"CONSTITUTION',
      '"lien_status":"Released"\n,"cd_flng_type":"ORIG FIN STMT"\n,"tx_lien_descript":"OFS"\n,"debtor_nm_bus":"CONSTITUTION',
    );
    expect(released).not.toBe(ctJson);
    const later = await loadSource(SOURCES.ct, [["xfev-8smz.json", released]]);
    expect(later.rows[0]).toMatchObject({ changed: 1 });
    expect(later.summary).toMatchObject({ read: 1, updated: 1 });
    expect(await lookup("0005229652", "CT")).toMatchObject({ estimated_lien_status: "Terminated" });
    const feed = await getJson(fresh("/filings/changes?state=CT&types=filing.terminated") as "/filings/changes");
    expect(feed.changes.map((c) => c.initial_financing_number)).toContain("0005229652");
  });

  it("gives the state's data_through as the newest date in the office's data", async () => {
    const states = await getJson(fresh("/states") as "/states");
    expect(states.states.find((s) => s.state === "CT")).toMatchObject({ data_through: "2025-04-01" });
  });
  it("is the state's backfill: its first load announces no filing, and /states says when it was done", async () => {
    const feed = await getJson(fresh("/filings/changes?state=CT&types=filing.created") as "/filings/changes");
    expect(feed.changes).toEqual([]);
    const states = await getJson(fresh("/states") as "/states");
    expect(states.states.find((s) => s.state === "CT")).toMatchObject({
      backfilled_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
  });

  it("takes a continued lien's lapse date as the office wrote it, not extended again by the lien's term", async () => {
    const row = (record: string, type: string, descript: string, accept: string, lapse: string) => ({
      id_lien_flng_nbr: record.slice(0, -1) + "1",
      id_ucc_flng_nbr: record,
      cd_flng_type: type,
      tx_lien_descript: descript,
      lien_status: "Active",
      debtor_nm_bus: "CONTINUED LIEN LLC",
      sec_party_nm_bus: "INTERNAL REVENUE SERVICE",
      dt_accept: `${accept}T00:00:00.000`,
      dt_lapse: `${lapse}T00:00:00.000`,
    });
    // Each row repeats the lien's lapse date as continued: a tax lien's ten years from its refiling.
    const rows = [
      row("0000100001", "ORIG FIN STMT", "IRS", "2016-03-01", "2036-04-01"),
      row("0000100002", "CONTINUATION", "IRS", "2025-09-01", "2036-04-01"),
      row("0000300001", "ORIG FIN STMT", "OFS", "2019-06-26", "2029-06-26"),
      row("0000300002", "CONTINUATION", "OFS", "2024-03-01", "2029-06-26"),
    ];
    const loaded = await loadSource(SOURCES.ct, [["continued.json", JSON.stringify(rows)]]);
    expect(loaded.rejects).toEqual([]);
    expect(await lookup("0000100001", "CT")).toMatchObject({
      filing_kind: "federal_tax_lien",
      estimated_lien_lapse_date: "2036-04-01",
    });
    expect(await lookup("0000300001", "CT")).toMatchObject({ estimated_lien_lapse_date: "2029-06-26" });
  });

  it("reads a record's date from the rows that give it, when another of its rows leaves it blank", async () => {
    const row = (record: string, type: string, debtor: string, accept?: string) => ({
      id_lien_flng_nbr: "0000400001",
      id_ucc_flng_nbr: record,
      cd_flng_type: type,
      tx_lien_descript: "OFS",
      lien_status: "Active",
      debtor_nm_bus: debtor,
      sec_party_nm_bus: "FIRST COUNTY BANK",
      ...(accept ? { dt_accept: `${accept}T00:00:00.000` } : {}),
      dt_lapse: "2029-01-10T00:00:00.000",
    });
    const rows = [
      row("0000400001", "ORIG FIN STMT", "FIRST DEBTOR LLC", "2024-01-10"),
      row("0000400001", "ORIG FIN STMT", "SECOND DEBTOR LLC"),
      row("0000400002", "RELEASE", "FIRST DEBTOR LLC", "2025-02-01"),
      row("0000400002", "RELEASE", "SECOND DEBTOR LLC"),
    ];
    const loaded = await loadSource(SOURCES.ct, [["undated.json", JSON.stringify(rows)]]);
    expect(loaded.rejects).toEqual([]);
    const filing = await lookup("0000400001", "CT");
    expect(filing).toMatchObject({
      initial_financing_date: "2024-01-10T00:00:00Z",
      estimated_lien_status: "Terminated",
    });
    expect(filing.involved_parties.debtor_parties.map((d) => d.name)).toEqual([
      "FIRST DEBTOR LLC",
      "SECOND DEBTOR LLC",
    ]);
  });

  it("dates a Released lien's termination by its newest dated row, and terminates it though its rows leave dates blank", async () => {
    const row = (lien: string, record: string, type: string, debtor: string, accept?: string) => ({
      id_lien_flng_nbr: lien,
      id_ucc_flng_nbr: record,
      cd_flng_type: type,
      tx_lien_descript: "IRS",
      lien_status: "Released",
      debtor_nm_bus: debtor,
      sec_party_nm_bus: "INTERNAL REVENUE SERVICE",
      ...(accept ? { dt_accept: `${accept}T00:00:00.000` } : {}),
      dt_lapse: "2034-01-10T00:00:00.000",
    });
    const rows = [
      // No release record; its second debtor's row is undated, an amendment dated after the lien.
      row("0000900001", "0000900001", "ORIG FIN STMT", "FIRST DEBTOR LLC", "2024-01-10"),
      row("0000900001", "0000900001", "ORIG FIN STMT", "SECOND DEBTOR LLC"),
      row("0000900001", "0000900002", "AMENDMENT", "FIRST DEBTOR LLC", "2025-03-01"),
      // Its release record undated: kept (src/feed/schema.ts), dated as the lien.
      row("0000970001", "0000970001", "ORIG FIN STMT", "UNDATED RELEASE LLC", "2023-05-01"),
      row("0000970001", "0000970002", "RELEASE", "UNDATED RELEASE LLC"),
    ];
    const loaded = await loadSource(SOURCES.ct, [["released.json", JSON.stringify(rows)]]);
    expect(loaded.rejects).toEqual([]);
    const lien = await lookup("0000900001", "CT");
    expect(lien.estimated_lien_status).toBe("Terminated");
    expect(lien.amendments).toContainEqual(
      expect.objectContaining({
        amendment_financing_number: "0000900001-RELEASED",
        amendment_financing_date: "2025-03-01T00:00:00Z",
        amendment_kind: "termination",
      }),
    );
    // Dated by a row that gives a date, not left undated for the schema to date back to the filing.
    const warned = (filing: string) => loaded.warnings.filter((w) => w.filing === filing).map((w) => w.reason);
    expect(warned("CT 0000900001").join()).not.toContain("dt_accept");
    expect(await lookup("0000970001", "CT")).toMatchObject({
      estimated_lien_status: "Terminated",
      amendments: [
        expect.objectContaining({
          amendment_financing_number: "0000970002",
          amendment_financing_date: "2023-05-01T00:00:00Z",
          amendment_kind: "termination",
        }),
      ],
    });
  });
});

describe("Colorado's register (data.colorado.gov: four tables joined on fileid)", () => {
  let co: Awaited<ReturnType<typeof loadSource>>;
  beforeAll(async () => {
    // Parties and collateral before their transactions: each table told by its columns.
    co = await loadSource(SOURCES.co, [
      ["8upq-58vz.json", coDebtors],
      ["4am6-w6u4.json", coCollateral],
      ["rows.csv", coTransactions],
      ["ap62-sav4.json", coSecured],
    ]);
  });

  it("is Colorado's backfill too, though the service already holds Connecticut's filings", async () => {
    const feed = await getJson(fresh("/filings/changes?state=CO") as "/filings/changes");
    expect(feed.changes).toEqual([]);
  });

  it("tells each file's table by its columns and joins them", () => {
    expect(co.rows.map((r) => [r.table?.tab, r.rows, r.rejected])).toEqual([
      ["co_debtors", 8, 0],
      ["co_collateral", 3, 0],
      ["co_transactions", 9, 1],
      ["co_secured", 5, 0],
    ]);
    expect(co.summary).toEqual(counts({ read: 5, inserted: 4, warned: 1, amendments: 1, pending: 1 }));
    expect(co.rejects.map((r) => [r.file, r.line, r.reason])).toEqual([
      ["rows.csv", 10, "masterdocumentid: missing: the filing this amendment is of is unknown"],
    ]);
  });

  it("assembles a filing with its debtors, collateral, amendments and continuation", async () => {
    const lien = await lookup("20212012345", "CO");
    expect(lien).toMatchObject({
      initial_financing_date: "2021-03-05T00:00:00Z",
      filing_kind: "standard",
      // The continuation's lapse date.
      estimated_lien_lapse_date: "2031-03-05",
      collateral: "All equipment, inventory and accounts of the debtor,\nnow owned or hereafter acquired.",
    });
    expect(lien.involved_parties.debtor_parties.map((d) => [d.name, d.address.zip_code])).toEqual([
      ["ROCKY MOUNTAIN BAKERY LLC", "80202"],
      ["GARCIA, MARIA L", "81504"],
      ["ROCKY MOUNTAIN BAKERY HOLDINGS INC", "80202-1234"],
    ]);
    expect(lien.amendments.map((a) => [a.amendment_financing_number, a.amendment_kind])).toEqual([
      ["20242099999", "party_change"],
      ["20252000001", "continuation"],
    ]);
    expect(await numbersOf("Maria L Garcia", "CO")).toEqual(["20212012345"]);
  });

  it("reads filing types and flags: a federal tax lien terminated by its flag, a manufactured home abroad", async () => {
    expect(await lookup("2007F074276", "CO")).toMatchObject({
      filing_kind: "federal_tax_lien",
      estimated_lien_status: "Terminated",
      amendments: [expect.objectContaining({ amendment_kind: "termination" })],
    });
    expect(await lookup("19952082638", "CO")).toMatchObject({
      filing_kind: "manufactured_home",
      involved_parties: {
        debtor_parties: [
          expect.objectContaining({
            address: expect.objectContaining({ city: "Oslo", zip_code: "0155", country: "NO" }),
          }),
        ],
      },
    });
    expect(await lookup("20252044444", "CO")).toMatchObject({ filing_kind: "other_lien" });
  });

  it("keeps a party whose transaction is not read yet, and joins it when the transaction comes", async () => {
    expect(await rowsWaiting(db, SOURCES.co)).toBe(1);
    const late =
      "transactionId,masterDocumentId,fileId,transactionType,documentType,filingType,filingDate,lapseDate\n" +
      "20262000123,20262000123,9999,Initial Filing,UCC financing statement,ucc,11/02/2026,11/02/2031\n";
    const more = await loadSource(SOURCES.co, [["later.csv", late]]);
    expect(more.summary).toMatchObject({ inserted: 1 });
    expect(await rowsWaiting(db, SOURCES.co)).toBe(0);
    expect((await lookup("20262000123", "CO")).involved_parties.debtor_parties.map((d) => d.name)).toEqual([
      "LATE ARRIVAL LLC",
    ]);
  });

  it("takes a continued lien's lapse date as the office wrote it, though it equals the initial's: not extended again by the lien's term", async () => {
    // Each transaction repeats the lien's lapse date as continued: a tax lien's ten years from its refiling.
    const continued =
      "transactionId,masterDocumentId,fileId,transactionType,documentType,filingType,filingDate,lapseDate,continuation,terminationFlag\n" +
      "2016F000001,2016F000001,7001,Initial Filing,Federal Tax Lien,lien_irs,03/01/2016,04/01/2036,false,false\n" +
      "2025F000002,2016F000001,7002,Amendment,Federal Tax Lien Refiling,lien_irs,09/01/2025,04/01/2036,true,false\n" +
      // A continuation by its flag alone, its description no kind's.
      "2017F000001,2017F000001,7101,Initial Filing,Federal Tax Lien,lien_irs,05/01/2017,06/01/2037,false,false\n" +
      "2026F000002,2017F000001,7102,Amendment,Federal Tax Lien Notice,lien_irs,10/01/2026,06/01/2037,true,false\n";
    const debtors = JSON.stringify(
      ["7001", "7101"].map((fileid) => ({
        fileid,
        debtorid: `7${fileid}`,
        organizationname: `CONTINUED ${fileid} LLC`,
      })),
    );
    const loaded = await loadSource(SOURCES.co, [
      ["8upq-58vz.json", debtors],
      ["continued.csv", continued],
    ]);
    expect(loaded.rejects).toEqual([]);
    expect(await lookup("2016F000001", "CO")).toMatchObject({
      estimated_lien_lapse_date: "2036-04-01",
      amendments: [expect.objectContaining({ amendment_kind: "continuation", amendment_lapse_date: "2036-04-01" })],
    });
    expect(await lookup("2017F000001", "CO")).toMatchObject({
      estimated_lien_lapse_date: "2037-06-01",
      amendments: [expect.objectContaining({ amendment_kind: "continuation", amendment_lapse_date: "2037-06-01" })],
    });
  });
});

describe("Oregon's register (data.oregon.gov snfi-f79b, a month at a time)", () => {
  it("applies an amendment of a later month to the filing of an earlier one, and a release of a federal tax lien", async () => {
    const january = await loadSource(SOURCES.or, [["2026-01.json", orJanuary]]);
    expect(january.summary).toEqual(counts({ read: 4, inserted: 3, warned: 1, amendments: 1, pending: 1 }));
    expect(january.rejects.map((r) => r.reason)).toEqual([
      "file_number and original_file_number: missing: the row names no filing",
    ]);
    // The real row's amendment: its filing was in a month not loaded.
    expect(january.warnings.find((w) => w.amendment === "1866-23")).toMatchObject({ filing: "OR 1866" });
    const february = await loadSource(SOURCES.or, [["2026-02.json", orFebruary]]);
    expect(february.summary).toEqual(counts({ read: 3, inserted: 1, updated: 2, warned: 2 }));
    expect(await lookup("90712345", "OR")).toMatchObject({
      amendments: [expect.objectContaining({ amendment_financing_number: "90712345-1" })],
    });
    expect((await lookup("90712345", "OR")).involved_parties.debtor_parties.map((d) => d.name)).toContain(
      "WVV RETAIL LLC",
    );
    expect(await lookup("90712400", "OR")).toMatchObject({
      filing_kind: "federal_tax_lien",
      estimated_lien_status: "Terminated",
    });
    // A party of neither role is left out, and said so.
    expect(february.warnings.find((w) => w.filing === "OR 90712600")?.reason).toContain(
      'party_type "XX" is neither DB (debtor) nor SP (secured party): "SOMEONE UNKNOWN" left out',
    );
    expect(february.unrecognised).toMatchObject({ party_type: { XX: 1 } });
  });

  it("reads a filing's date from the rows that give it, when another of its rows leaves it blank", async () => {
    const row = (party: string, entity: string, filed?: string) => ({
      file_number: "91000001",
      original_file_number: "91000001",
      file_type: "INITIAL",
      lien_type: "UCC",
      entity_type: "ORG",
      party_type: party,
      entity,
      ...(filed ? { filing_date: `${filed}T00:00:00` } : {}),
      lapse_date: "2031-01-14T00:00:00",
    });
    const loaded = await loadSource(SOURCES.or, [
      ["undated.json", JSON.stringify([row("DB", "CASCADE LLC", "2026-01-14"), row("SP", "UMPQUA BANK")])],
    ]);
    expect(loaded.rejects).toEqual([]);
    const filing = await lookup("91000001", "OR");
    expect(filing).toMatchObject({
      initial_financing_date: "2026-01-14T00:00:00Z",
      estimated_lien_lapse_date: "2031-01-14",
    });
    expect(filing.involved_parties.secured_parties.map((s) => s.name)).toEqual(["UMPQUA BANK"]);
  });
});
