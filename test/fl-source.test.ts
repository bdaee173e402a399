/**
 * Florida's federal lien registrations (src/feed/sources/fl.ts,
 * docs/sources/fl-flr.md), written here in the office's fixed-width layouts
 * (one `flrf` line is a real one), loaded in-process and read back through
 * the API: a zipped quarterly set, a day's set after it, a reload that
 * changes nothing, and the sets and archives refused before anything is
 * written.
 */
import { and, count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { sourceRows } from "../src/db/schema.ts";
import { FeedFileError } from "../src/feed/read.ts";
import { FilesRefused, stageBulk } from "../src/feed/sources/bulk.ts";
import { florida } from "../src/feed/sources/fl.ts";
import { flLine } from "../src/feed/sources/flLayout.ts";
import { changesOf, db, loadBulk, lookup, memoryFile, numbersOf, reportOf, stateOf, zipOf } from "./bulkSources.ts";
import { counts, emptyDatabase } from "./feeds.ts";
import { registerKeys } from "./helpers.ts";

/** A real line of a daily flrf file of 2021-01-06 (its lost first character restored). */
const REAL = "21FLR0000010010620210000100001AF081020200000000009092030 0000000001000010000100001";

const filing = (document: string, status: string, filed: string, expires: string, cancelled = "00000000") =>
  flLine("flrf", {
    document,
    filed,
    pages: "00001",
    total_pages: "00001",
    status,
    type: "F",
    assessed: filed,
    cancelled,
    expires,
    utility: "N",
    events: "00000",
    debtors_ever: "00001",
    secured_ever: "00001",
    debtors: "00001",
    secured: "00001",
  });
const party = (kind: "flrd" | "flrs", document: string, seq: string, name: string, format = "C") =>
  flLine(kind, {
    type: "F",
    document,
    name,
    format,
    street1: kind === "flrs" ? "400 W BAY ST" : "1 OCEAN DR",
    city: kind === "flrs" ? "JACKSONVILLE" : "MIAMI",
    state: "FL",
    zip: kind === "flrs" ? "322024437" : "33139",
    country: "US",
    seq,
    relation: "C",
    original: "Y",
    status: "A",
  });
const IRS = "INTERNAL REVENUE SERVICE";
/** The termination a lien's status T gives it: numbered for the lien, dated `day`. */
const statusTermination = (document: string, day: string) =>
  expect.objectContaining({
    amendment_financing_number: `${document}-T`,
    amendment_financing_date: `${day}T00:00:00Z`,
    amendment_kind: "termination",
  });
const lines = (...all: string[]) => `${all.join("\r\n")}\r\n`;

const quarterly = {
  flrf: lines(
    REAL,
    filing("22FLR0000020", "A", "03152022", "04142032"),
    filing("20FLR0000030", "T", "06012020", "07012030", "02012024"),
    filing("14FLR0000040", "L", "05052014", "06042024"),
  ),
  flrd: lines(
    party("flrd", "21FLR0000010", "00001", "JOHN A SMITH", "P"),
    party("flrd", "22FLR0000020", "00001", "SUNSHINE ROOFING INC"),
    party("flrd", "22FLR0000020", "00002", "SUNSHINE HOLDINGS LLC"),
    party("flrd", "20FLR0000030", "00001", "GULF COAST MARINE LLC"),
    party("flrd", "14FLR0000040", "00001", "MARIA LOPEZ", "P"),
    // A debtor of a lien no flrf file has listed.
    party("flrd", "19FLR0000999", "00001", "NOBODY'S DEBTOR LLC"),
  ),
  flrs: lines(
    ...["21FLR0000010", "22FLR0000020", "20FLR0000030", "14FLR0000040"].map((d) => party("flrs", d, "00001", IRS)),
  ),
  // Events whose lines are not the published 320 characters: left out, said.
  flre: lines("21FLR0000011".padEnd(135, " "), "22FLR0000021".padEnd(135, " ")),
};

const event = (number: string, document: string, date: string, action: string, description: string) =>
  flLine("flre", {
    event: number,
    document,
    actions: "00001",
    event_seq: "00001",
    pages: "00001",
    date,
    action_seq: "00001",
    action,
    description,
    party: "D",
  });

// A day's set: a lien released, one lapsed (its expiration date moved back), a new one.
const day = {
  flrf: lines(
    filing("22FLR0000020", "T", "03152022", "04142032", "11202026"),
    // The real line's lien, now lapsed (L), its expiration date moved back to 2026-11-01.
    `${REAL.slice(0, 30)}L${REAL.slice(31, 48)}11012026${REAL.slice(56)}`,
    filing("26FLR0000050", "A", "11202026", "12202036"),
  ),
  flrd: lines(party("flrd", "26FLR0000050", "00001", "ROBERT T JONES", "P")),
  flrs: lines(party("flrs", "26FLR0000050", "00001", IRS)),
  flre: lines(event("26FLR0000051", "22FLR0000020", "11202026", "COR", "CERTIFICATE OF RELEASE")),
};
// Each file ending as DOS-era writers end theirs: a blank line, then the end-of-file mark (Ctrl-Z).
const daySet = () =>
  Object.entries(day).map(([kind, text]) => memoryFile(`fl/20261120${kind}.txt`, `${text}\r\n\u001a`));

const staged = async () =>
  (
    await db
      .select({ n: count() })
      .from(sourceRows)
      .where(and(eq(sourceRows.source, "fl-flr")))
  )[0]?.n ?? 0;

beforeAll(async () => {
  await registerKeys();
  await emptyDatabase();
});

describe("Florida's federal lien registrations (flrf, flrd, flrs, flre)", () => {
  let first: Awaited<ReturnType<typeof loadBulk>>;
  beforeAll(async () => {
    const zipped = await Promise.all(
      Object.entries(quarterly).map(async ([kind, text]) =>
        memoryFile(`fl/${kind}.zip`, await zipOf(`${kind.toUpperCase()}.TXT`, text)),
      ),
    );
    first = await loadBulk(florida, zipped);
  });

  it("reads a zipped quarterly set, and leaves out events whose lines are not of the published length, saying which", () => {
    expect(first.problems).toEqual([
      "fl/flre.zip: events (flre) are read only when every line has the published 320 characters: line 1 has 135; lengths found: 135 (2 lines): left out",
    ]);
    expect(first.rows).toMatchObject({ rows: 14, rejected: 0 });
    expect(first.summary).toMatchObject({ read: 5, inserted: 4, rejected: 1 });
    expect(first.rejects.map((r) => [r.file, r.line, r.reason])).toEqual([
      [
        "fl/flrd.zip",
        6,
        "lien 19FLR0000999: no filing record (flrf) of it has been read: its 1 rows are kept, and loaded when its flrf record is",
      ],
    ]);
  });

  it("serves the real line's lien: a federal tax lien, its dates the office's, the IRS its secured party", async () => {
    expect(await lookup("21FLR0000010", "FL")).toMatchObject({
      initial_financing_date: "2021-01-06T00:00:00Z",
      filing_kind: "federal_tax_lien",
      estimated_lien_lapse_date: "2030-09-09",
      lapse_date_source: "office",
      estimated_lien_status: "Active",
      filing_office: "Florida Department of State",
      involved_parties: {
        debtor_parties: [expect.objectContaining({ name: "JOHN A SMITH", type: "Individual" })],
        secured_parties: [
          expect.objectContaining({ name: IRS, address: expect.objectContaining({ zip_code: "32202-4437" }) }),
        ],
      },
    });
    expect(await numbersOf("John A Smith", "FL")).toEqual(["21FLR0000010"]);
    expect(await numbersOf("Sunshine Holdings LLC", "FL")).toEqual(["22FLR0000020"]);
  });

  it("counts its liens in a lien report as federal tax liens, the IRS a government lender", async () => {
    const report = await reportOf("John A Smith", "FL");
    expect(report.numbers).toEqual(["21FLR0000010"]);
    expect(report.summary).toMatchObject({ filings: 1, active: 1, active_by_kind: { federal_tax_lien: 1 } });
    expect(report.summary.active_secured_parties).toEqual([{ name: IRS, kind: "government", filings: 1 }]);
    expect(report.through).toBe((await stateOf("FL"))?.data_through);
  });

  it("keeps the office's status: a terminated lien ends on its cancellation date, a lapsed one on its expiration date", async () => {
    expect(await lookup("20FLR0000030", "FL")).toMatchObject({
      estimated_lien_status: "Terminated",
      amendments: [statusTermination("20FLR0000030", "2024-02-01")],
    });
    expect(await lookup("14FLR0000040", "FL")).toMatchObject({
      estimated_lien_lapse_date: "2024-06-04",
      estimated_lien_status: "Lapsed",
    });
  });

  it("is the state's backfill, its data_through the newest date the office wrote", async () => {
    expect(await changesOf("FL")).toEqual([]);
    expect(await stateOf("FL")).toMatchObject({ data_through: "2024-02-01" });
  });

  describe("a day's set after the quarterly one, its files ending in a blank line and an end-of-file mark", () => {
    let next: Awaited<ReturnType<typeof loadBulk>>;
    beforeAll(async () => {
      next = await loadBulk(florida, daySet());
    });

    it("changes what it names, and announces the release, the lapse and the new lien", async () => {
      // The blank lines are no records: no reject, and the events file is read.
      expect(next.problems).toEqual([]);
      expect(next.rejects).toEqual([]);
      expect(next.summary).toEqual(counts({ read: 3, inserted: 1, updated: 2 }));
      // The termination is the status's, dated its cancellation; the release event is listed beside it.
      expect(await lookup("22FLR0000020", "FL")).toMatchObject({
        estimated_lien_status: "Terminated",
        amendments: [
          statusTermination("22FLR0000020", "2026-11-20"),
          expect.objectContaining({
            amendment_financing_number: "26FLR0000051",
            amendment_financing_type_description: "CERTIFICATE OF RELEASE",
            amendment_kind: "other",
          }),
        ],
      });
      expect(await lookup("21FLR0000010", "FL")).toMatchObject({
        estimated_lien_lapse_date: "2026-11-01",
        estimated_lien_status: "Lapsed",
      });
      expect(await changesOf("FL")).toEqual(
        expect.arrayContaining([
          ["filing.created", "26FLR0000050"],
          ["filing.terminated", "22FLR0000020"],
          ["filing.updated", "21FLR0000010"],
        ]),
      );
      expect(await stateOf("FL")).toMatchObject({ data_through: "2026-11-20" });
    });

    it("changes nothing and announces nothing when the same set is loaded again", async () => {
      const before = await changesOf("FL");
      const again = await loadBulk(florida, daySet());
      expect(again.rows).toMatchObject({ rows: 6, changed: 0, rejected: 0 });
      expect(again.summary).toEqual(counts({}));
      expect(await changesOf("FL")).toEqual(before);
    });
  });

  describe("a release the status told first, its event a day later, and one whose event is undated", () => {
    // 20FLR0000030 has been T since the quarterly set; its certificate of release comes now.
    const later = {
      flrf: lines(
        filing("20FLR0000030", "T", "06012020", "07012030", "02012024"),
        filing("26FLR0000060", "T", "11022026", "12022036", "11212026"),
      ),
      flrd: lines(party("flrd", "26FLR0000060", "00001", "KEY WEST CHARTERS LLC")),
      flrs: lines(party("flrs", "26FLR0000060", "00001", IRS)),
      flre: lines(
        event("26FLR0000061", "20FLR0000030", "02012024", "COR", "CERTIFICATE OF RELEASE"),
        event("26FLR0000062", "26FLR0000060", "00000000", "COR", "CERTIFICATE OF RELEASE"),
      ),
    };
    let changes: [string, string][];
    beforeAll(async () => {
      const before = (await changesOf("FL")).length;
      await loadBulk(
        florida,
        Object.entries(later).map(([kind, text]) => memoryFile(`fl/20261121${kind}.txt`, text)),
      );
      changes = (await changesOf("FL")).slice(before) as [string, string][];
    });

    it("announces a lien's termination once, not again when its release event arrives", async () => {
      expect(changes.filter((c) => c[1] === "20FLR0000030")).toEqual([["filing.amended", "20FLR0000030"]]);
      expect(await lookup("20FLR0000030", "FL")).toMatchObject({
        estimated_lien_status: "Terminated",
        amendments: [
          statusTermination("20FLR0000030", "2024-02-01"),
          expect.objectContaining({ amendment_financing_number: "26FLR0000061", amendment_kind: "other" }),
        ],
      });
    });

    it("serves a lien terminated though its release event is undated, dated its cancellation", async () => {
      expect(await lookup("26FLR0000060", "FL")).toMatchObject({
        estimated_lien_status: "Terminated",
        amendments: [statusTermination("26FLR0000060", "2026-11-21")],
      });
      expect(changes).toContainEqual(["filing.terminated", "26FLR0000060"]);
    });
  });

  it("refuses a set without its flrf file, naming it, before anything is written", async () => {
    const before = await staged();
    const set = [memoryFile("20261121flrd.txt", day.flrd), memoryFile("20261121flrs.txt", day.flrs)];
    await expect(stageBulk(db, florida, set)).rejects.toThrow(FilesRefused);
    await expect(stageBulk(db, florida, set)).rejects.toThrow(/has no 20261121flrf\.txt/);
    expect(await staged()).toBe(before);
  });

  it("refuses a damaged or cut-short archive, naming it, before anything is written", async () => {
    const before = await staged();
    const good = await zipOf("FLRF.TXT", quarterly.flrf);
    const damaged = good.slice();
    damaged[40] = (damaged[40] ?? 0) ^ 0xff;
    const cut = good.slice(0, good.length - 30);
    for (const [bytes, why] of [
      [damaged, /^fl\/flrf\.zip: the zip archive does not open: FLRF\.TXT: /],
      [cut, /^fl\/flrf\.zip: the zip archive does not open: no end of central directory/],
    ] as const) {
      const files = [memoryFile("fl/flrf.zip", bytes), memoryFile("fl/flrd.txt", quarterly.flrd)];
      const err = await stageBulk(db, florida, files).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FeedFileError);
      expect((err as Error).message).toMatch(why);
    }
    expect(await staged()).toBe(before);
  });
});
