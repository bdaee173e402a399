/**
 * Texas's bulk UCC files (src/feed/sources/tx.ts, docs/sources/tx.md),
 * written here in both layouts (2013's 506-character records, 2025's 511),
 * loaded in-process and read back through the API: a master unload split
 * over files in any order, bad lines, a daily update that replaces what it
 * names, and a reload that changes nothing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { stageBulk } from "../src/feed/sources/bulk.ts";
import { SOURCES } from "../src/feed/sources/registry.ts";
import { texas } from "../src/feed/sources/tx.ts";
import { type TxLayout, txLine } from "../src/feed/sources/txLayout.ts";
import { changesOf, db, loadBulk, lookup, memoryFile, numbersOf, reportOf, stateOf } from "./bulkSources.ts";
import { counts, emptyDatabase, fresh } from "./feeds.ts";
import { getJson, registerKeys } from "./helpers.ts";

type Values = Record<string, string>;

/** Records of one filing in `layout`: its master record, its MR record, parties, amendments and collateral. */
function records(layout: TxLayout, filing: string) {
  const line = (code: string, values: Values) => txLine(layout, { code, filing, ...values });
  return {
    master: (type: string, status: string, expires: string) =>
      line("1", { type, status, expires, pages: "0002", document: `D${filing}` }),
    record: (record: string, amendment: string, filed: string, comment = "") =>
      line("6", { record, amendment, filed, time: "1403", pages: "0001", entered: filed, comment }),
    organization: (code: "2" | "4", name: string, street = "", city = "", zip = "") =>
      line(code, { name, street, city, state: street ? "TX" : "", zip, country: street ? "USA" : "" }),
    person: (code: "3" | "5", last: string, first: string, middle = "", suffix = "") =>
      line(code, {
        last,
        first,
        middle,
        suffix,
        street: "9 ELM ST",
        city: "DALLAS",
        state: "TX",
        zip: "75201",
        zip4: "4455",
      }),
    collateral: (seq: string, text: string, ucc3 = "") => line("7", { seq, text, ucc3 }),
  };
}

const trailer = (layout: TxLayout) => `9${"0".repeat(9)}`.padEnd(layout === 2013 ? 506 : 511, " ");
const file = (lines: string[]) => `${lines.join("\r\n")}\r\n`;

const COLLATERAL =
  "ALL INVENTORY, EQUIPMENT, ACCOUNTS AND GENERAL INTANGIBLES OF THE DEBTOR, NOW OWNED OR HEREAFTER ACQUIRED.";

const f1 = records(2013, "230012345678");
const f2 = records(2013, "230012345679");
const f3 = records(2013, "230012345680");
const f4 = records(2013, "230012345681");
const f5 = records(2013, "230012345682");
const f6 = records(2025, "25000000000000001");
const f8 = records(2025, "25000000000000077");

// The master unload in two files, a filing's records spread over both and out of order.
const master1 = file([
  f1.collateral("000002", COLLATERAL.slice(80)),
  f1.master("", "A", "20290719"),
  f2.master("F", "A", "20360301"),
  f1.organization("2", "LONE STAR WIDGETS LLC", "100 CONGRESS AVE", "AUSTIN", "78701"),
  f3.master("U", "A", ""),
  f3.record("2000333333", "MR", "20200101"),
  f3.organization("2", "PANHANDLE ELECTRIC COOPERATIVE INC"),
  f3.organization("4", "NATIONAL RURAL UTILITIES COOPERATIVE FINANCE CORPORATION"),
  f3.record("2500222222", "T", "20250601"),
  trailer(2013),
]);
const master2 = file([
  f1.person("3", "GARZA", "MARIA", "ELENA"),
  f1.record("2400123456", "MR", "20240719"),
  f1.collateral("000001", COLLATERAL.slice(0, 80)),
  f1.collateral("000003", "PROCEEDS."),
  f1.organization("4", "FROST BANK", "111 W HOUSTON ST", "SAN ANTONIO", "78205"),
  f2.person("3", "NGUYEN", "AN"),
  f2.organization("4", "INTERNAL REVENUE SERVICE"),
  f2.record("2100111111", "MR", "20210215"),
  f2.record("2600111111", "C", "20260110"),
  f4.master("M", "L", "20230505"),
  f4.record("9300444444", "MR", "19930505"),
  f4.person("3", "SMITH", "JOHN", "", "JR"),
  f4.organization("4", "VANDERBILT MORTGAGE AND FINANCE INC"),
  // Bad lines: a short record, an unknown code, a date that is not one; a debtor whose filing is in no file.
  f5.organization("2", "SHORT RECORD LLC").slice(0, 300),
  `8${"X".repeat(505)}`,
  f5.record("2500555556", "AM", "20241345"),
  records(2013, "239999999999").organization("2", "ORPHAN DEBTOR LLC"),
  // Filing 5's readable records: without the two that could not be read, it is not loaded at all.
  f5.master("", "A", "20300101"),
  f5.record("2500555555", "MR", "20250101"),
  f5.organization("2", "HALF LOADED LLC"),
  trailer(2013),
]);
// A filing of the 2025 layout, in the same load.
const layout2025 = file([
  f6.master("P", "A", "20551115"),
  f6.record("2511150001", "MR", "20251115"),
  f6.organization("2", "CITY OF ODESSA", "411 W 8TH ST", "ODESSA", "79761"),
  f6.person("3", "OKAFOR", "CHIDI", "N"),
  f6.organization("4", "THE BANK OF NEW YORK MELLON TRUST COMPANY"),
  // A filing whose termination has a space too many: of neither length, and its number the 2025 layout's.
  f8.master("", "A", "20300101"),
  f8.record("2500000077", "MR", "20250801"),
  f8.organization("2", "TERMINATED LATER LLC"),
  f8.organization("4", "FROST BANK"),
  `${f8.record("2600000077", "T", "20251001")} `,
  trailer(2025),
]);

// A daily update: filing 1's whole new record (its debtor moved, an amendment), and a new filing.
const d1 = records(2025, "230012345678");
const d7 = records(2025, "230012345690");
const daily = file([
  d1.master("", "A", "20290719"),
  d1.record("2400123456", "MR", "20240719"),
  d1.organization("2", "LONE STAR WIDGETS LLC", "200 CONGRESS AVE", "AUSTIN", "78701"),
  d1.person("3", "GARZA", "MARIA", "ELENA"),
  d1.organization("4", "FROST BANK", "111 W HOUSTON ST", "SAN ANTONIO", "78205"),
  d1.record("2611200001", "AM", "20261120", "DEBTOR ADDRESS CHANGE"),
  d1.collateral("000001", COLLATERAL.slice(0, 80)),
  d1.collateral("000002", COLLATERAL.slice(80)),
  d7.master("", "A", "20311120"),
  d7.record("2611200002", "MR", "20261120"),
  d7.organization("2", "PECOS RIVER RANCH LLC", "1 RANCH RD", "FORT STOCKTON", "79735"),
  d7.organization("4", "FIRST FINANCIAL BANK"),
  trailer(2025),
]);

beforeAll(async () => {
  await registerKeys();
  await emptyDatabase();
});

describe("Texas's bulk files (master unload and daily update, fixed width)", () => {
  let master: Awaited<ReturnType<typeof loadBulk>>;
  beforeAll(async () => {
    master = await loadBulk(texas, [
      memoryFile("master-1.txt", master1),
      memoryFile("master-2.txt", master2),
      memoryFile("master-2025.txt", layout2025),
    ]);
  });

  it("is the source named tx", () => {
    expect(SOURCES.tx).toBe(texas);
  });

  it("assembles filings from records in any order across the files of one load, in both layouts", () => {
    expect(master.rows).toMatchObject({ rows: 39, rejected: 4 });
    expect(master.summary).toEqual(counts({ read: 8, inserted: 5, rejected: 3, warned: 4 }));
    // Parties the office recorded without an address are kept, and said so by line and field.
    expect(master.warnings.find((w) => w.filing === "TX 230012345681")?.reason).toContain(
      "line 13 street: not recorded",
    );
  });

  it("rejects a line of another length, an unknown record code, an impossible date, the filing of such a line (a 2025 number read whole), and a party of no filing, by file and line", () => {
    expect(master.rejects.map((r) => [r.file, r.line, r.reason])).toEqual([
      ["master-2.txt", 14, "a record of 300 characters: neither layout's length (506, of 2013; 511, of 2025)"],
      ["master-2.txt", 15, 'record code "8": not one of 1 to 7 (records) or 9 (the trailer)'],
      [
        "master-2.txt",
        16,
        'amendment record (code 6): filing date (positions 26-33): "20241345" is not a date (YYYYMMDD)',
      ],
      ["master-2025.txt", 10, "a record of 512 characters: neither layout's length (506, of 2013; 511, of 2025)"],
      [
        "master-2.txt",
        18,
        "filing 230012345682: not loaded, since a record of it could not be read (master-2.txt line 14: a record of 300 characters: neither layout's length (506, of 2013; 511, of 2025)); what was stored before is kept",
      ],
      [
        "master-2.txt",
        17,
        "filing 239999999999: no master record (code 1) among its 1 records in the files of this load: not loaded (a file gives a filing's records whole)",
      ],
      // Not loaded as Active without its termination: its number is read whole, not at 2013's twelve positions.
      [
        "master-2025.txt",
        6,
        "filing 25000000000000077: not loaded, since a record of it could not be read (master-2025.txt line 10: a record of 512 characters: neither layout's length (506, of 2013; 511, of 2025)); what was stored before is kept",
      ],
    ]);
  });

  it("serves a filing as the office recorded it: parties, collateral lines joined, its dates", async () => {
    const filing = await lookup("230012345678", "TX");
    expect(filing).toMatchObject({
      initial_financing_date: "2024-07-19T00:00:00Z",
      filing_kind: "standard",
      estimated_lien_lapse_date: "2029-07-19",
      lapse_date_source: "office",
      estimated_lien_status: "Active",
      filing_office: "Texas Secretary of State",
      collateral: `${COLLATERAL}\nPROCEEDS.`,
    });
    expect(filing.involved_parties.debtor_parties.map((d) => [d.name, d.address.street1, d.address.zip_code])).toEqual([
      ["LONE STAR WIDGETS LLC", "100 CONGRESS AVE", "78701"],
      ["GARZA, MARIA ELENA", "9 ELM ST", "75201-4455"],
    ]);
    expect(filing.involved_parties.secured_parties.map((s) => s.name)).toEqual(["FROST BANK"]);
    expect(await numbersOf("Maria Garza", "TX")).toEqual(["230012345678"]);
    expect(await numbersOf("Lone Star Widgets LLC", "TX")).toEqual(["230012345678"]);
    expect(await numbersOf("Chidi Okafor", "TX")).toEqual(["25000000000000001"]);
    // And in the borrower's lien report, with its collateral read.
    const report = await reportOf("Lone Star Widgets LLC", "TX");
    expect(report.numbers).toEqual(["230012345678"]);
    expect(report.summary.active_secured_parties).toEqual([{ name: "FROST BANK", kind: "bank", filings: 1 }]);
  });

  it("reads filing types as kinds, the office's expiration date as the lapse date, and amendment types as kinds", async () => {
    // A continuation the office's expiration date already counts is not counted again.
    expect(await lookup("230012345679", "TX")).toMatchObject({
      filing_kind: "federal_tax_lien",
      estimated_lien_lapse_date: "2036-03-01",
      amendments: [
        expect.objectContaining({ amendment_financing_number: "2600111111", amendment_kind: "continuation" }),
      ],
    });
    expect(await lookup("230012345680", "TX")).toMatchObject({
      filing_kind: "transmitting_utility",
      estimated_lien_lapse_date: null,
      estimated_lien_status: "Terminated",
      amendments: [expect.objectContaining({ amendment_financing_type_description: "Termination" })],
    });
    expect(await lookup("230012345681", "TX")).toMatchObject({
      filing_kind: "manufactured_home",
      estimated_lien_lapse_date: "2023-05-05",
      estimated_lien_status: "Lapsed",
    });
    expect(await lookup("25000000000000001", "TX")).toMatchObject({
      filing_kind: "public_finance",
      initial_financing_date: "2025-11-15T00:00:00Z",
    });
  });

  it("is the state's backfill, with data_through the newest date the office wrote", async () => {
    expect(await changesOf("TX")).toEqual([]);
    expect(await stateOf("TX")).toMatchObject({ data_through: "2026-01-10" });
  });

  describe("a daily update after the master, its file ending in a blank line and an end-of-file mark", () => {
    let update: Awaited<ReturnType<typeof loadBulk>>;
    beforeAll(async () => {
      // As DOS-era writers end a file: a blank line, then Ctrl-Z. Neither is a record, nor a reject.
      update = await loadBulk(texas, [memoryFile("daily-20261120.txt", `${daily}\r\n\u001a`)]);
    });

    it("replaces the filings it names with their new whole record, and announces what changed", async () => {
      expect(update.rejects).toEqual([]);
      expect(update.summary).toEqual(counts({ read: 2, inserted: 1, updated: 1, warned: 1 }));
      const filing = await lookup("230012345678", "TX");
      // The debtor's old address is gone with the record that held it; the third collateral line too.
      expect(filing.involved_parties.debtor_parties.map((d) => d.address.street1)).toEqual([
        "200 CONGRESS AVE",
        "9 ELM ST",
      ]);
      expect(filing.collateral).toBe(COLLATERAL);
      expect(filing.amendments).toEqual([
        expect.objectContaining({
          amendment_financing_number: "2611200001",
          amendment_financing_type_description: "Amendment: DEBTOR ADDRESS CHANGE",
          amendment_kind: "party_change",
        }),
      ]);
      expect(await changesOf("TX")).toEqual(
        expect.arrayContaining([
          ["filing.amended", "230012345678"],
          ["filing.created", "230012345690"],
        ]),
      );
      expect(await stateOf("TX")).toMatchObject({ data_through: "2026-11-20" });
    });

    it("changes nothing and announces nothing when the same files are loaded again", async () => {
      const before = await changesOf("TX");
      const again = await loadBulk(texas, [memoryFile("daily-20261120.txt", daily)]);
      expect(again.rows).toMatchObject({ rows: 12, changed: 0, rejected: 0 });
      expect(again.summary).toEqual(counts({}));
      expect(await changesOf("TX")).toEqual(before);
    });

    it("reads a file written in Latin-1 as the office wrote it, saying which lines were not UTF-8", async () => {
      const d9 = records(2025, "25000000000000099");
      const text = file([
        d9.master("", "A", "20311121"),
        d9.record("2611210001", "MR", "20261121"),
        d9.organization("2", "CAFÉ RENÉE LLC", "1 PLAZA ST", "EL PASO", "79901"),
        d9.organization("4", "BANCO DE MÉXICO USA"),
        trailer(2025),
      ]);
      // One byte a character, as a mainframe's Latin-1 export writes É (0xC9): not UTF-8.
      const latin1 = Uint8Array.from(text, (c) => c.charCodeAt(0));
      const loaded = await loadBulk(texas, [memoryFile("daily-20261121.txt", latin1)]);
      expect(loaded.rejects).toEqual([]);
      expect(loaded.problems).toEqual([
        "daily-20261121.txt: 2 lines (the first, line 3) are not UTF-8: read as Windows-1252 (Latin-1), one character a byte; check a name of such a line reads right",
      ]);
      const filing = await lookup("25000000000000099", "TX");
      expect(filing.involved_parties.debtor_parties[0]?.name).toBe("CAFÉ RENÉE LLC");
      expect(filing.involved_parties.secured_parties[0]?.name).toBe("BANCO DE MÉXICO USA");
      const found = await getJson(fresh("/debtors/search?name=Caf%C3%A9%20Ren%C3%A9e%20LLC&state=TX"));
      expect(found.ucc_liens.map((f) => f.initial_financing_number)).toContain("25000000000000099");
    });

    it("dates an undated termination by its entry, keeps a UCC-3 recorded under two types as one amendment, and gives an amendment's collateral lines after the filing's", async () => {
      const number = "25000000000000111";
      const f = records(2025, number);
      const amended = "AMENDED: ALL FARM PRODUCTS AND CROPS GROWN OR TO BE GROWN ON THE LANDS DESCRIBED IN EXHIBIT A.";
      const text = file([
        f.master("", "A", "20311122"),
        f.record("2611220001", "MR", "20261122"),
        f.organization("2", "BRAZOS FEED LLC"),
        f.organization("4", "AMARILLO NATIONAL BANK"),
        f.collateral("000001", COLLATERAL.slice(0, 80)),
        f.collateral("000002", COLLATERAL.slice(80)),
        // One UCC-3 an assignment and an amendment, its collateral lines numbered from 1 again.
        f.record("2611230001", "A", "20261123"),
        f.record("2611230001", "AM", "20261123", "COLLATERAL RESTATED"),
        f.collateral("000001", amended.slice(0, 80), "2611230001"),
        f.collateral("000002", amended.slice(80), "2611230001"),
        // A termination without its filing date, entered the next day.
        txLine(2025, {
          code: "6",
          filing: number,
          record: "2611240001",
          amendment: "T",
          filed: "00000000",
          time: "0000",
          pages: "0001",
          entered: "20261124",
        }),
        trailer(2025),
      ]);
      const loaded = await loadBulk(texas, [memoryFile("daily-20261124.txt", text)]);
      expect(loaded.rejects).toEqual([]);
      const filing = await lookup(number, "TX");
      expect(filing.estimated_lien_status).toBe("Terminated");
      expect(filing.collateral).toBe(`${COLLATERAL}\n${amended}`);
      expect(filing.amendments).toEqual([
        expect.objectContaining({
          amendment_financing_number: "2611230001",
          amendment_financing_type_description: "Assignment; Amendment: COLLATERAL RESTATED",
          amendment_kind: "assignment",
        }),
        expect.objectContaining({
          amendment_financing_number: "2611240001",
          amendment_financing_date: "2026-11-24T00:00:00Z",
          amendment_kind: "termination",
        }),
      ]);
    });

    it("keeps a filing whose own record (MR) has no filing date, dated by its entry date, and says so", async () => {
      const number = "25000000000000112";
      const f = records(2025, number);
      const text = file([
        f.master("", "A", "20311125"),
        txLine(2025, {
          code: "6",
          filing: number,
          record: "2611250001",
          amendment: "MR",
          filed: "00000000",
          time: "0000",
          pages: "0001",
          entered: "20261125",
        }),
        f.organization("2", "LLANO ESTACADO GRAIN LLC"),
        f.organization("4", "AMARILLO NATIONAL BANK"),
        trailer(2025),
      ]);
      const loaded = await loadBulk(texas, [memoryFile("daily-20261125.txt", text)]);
      expect(loaded.rejects).toEqual([]);
      expect(JSON.stringify(loaded.warnings)).toContain("dated by its entry date");
      expect(await lookup(number, "TX")).toMatchObject({
        initial_financing_date: "2026-11-25T00:00:00Z",
        estimated_lien_status: "Active",
      });
    });

    it("says an empty file is not read, naming it, and loads nothing of it", async () => {
      const empty = await loadBulk(texas, [memoryFile("empty.txt", "")]);
      expect(empty.failed).toBe(1);
      expect(empty.problems).toEqual(["empty.txt: not fully read: empty: no records, not even the trailer"]);
      expect(empty.summary).toEqual(counts({}));
    });

    it("tells a file's progress as its rows are written: the bytes read of its size, and its rows so far", async () => {
      const f = records(2025, "25000000000000113");
      const text = file([
        f.master("", "A", "20311126"),
        f.record("2611260001", "MR", "20261126"),
        f.organization("2", "CAPROCK SEED LLC"),
        f.organization("4", "AMARILLO NATIONAL BANK"),
        f.collateral("000001", "ALL SEED INVENTORY."),
        trailer(2025),
      ]);
      const seen: [number, number, number][] = [];
      await stageBulk(db, texas, [memoryFile("progress-20261126.txt", text)], {
        groupSize: 2,
        onProgress: (_file, bytes, total, counts) => void seen.push([bytes, total, counts.rows]),
      });
      const size = new TextEncoder().encode(text).byteLength;
      expect(seen.map(([, total]) => total)).toEqual([size, size, size]);
      expect(seen.map(([, , rows]) => rows)).toEqual([2, 4, 5]);
      const bytes = seen.map(([read]) => read);
      expect(bytes).toEqual([...bytes].sort((a, b) => a - b));
      expect(bytes.at(-1)).toBe(size);
    });
  });
});
