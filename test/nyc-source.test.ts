/**
 * New York City's register (ACRIS personal property, src/feed/sources/nyc.ts)
 * loaded from its three tables as the portal gives them, in any order, and
 * read back through the API: filings numbered by CRFN, amendments attached
 * through each kind of reference, people told from organizations, reloads
 * that change nothing, and unusable rows rejected by file and line.
 */
import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { sourceRows } from "../src/db/schema.ts";
import { shardDb } from "../src/db/shards.ts";
import { emptySummary, sumOf } from "../src/feed/import.ts";
import { FeedFileError, type Reject, type Warning } from "../src/feed/read.ts";
import { advanceThrough, assembleStep, finishLoad, rowsWaiting, rowsWaitingAt } from "../src/feed/sources/assemble.ts";
import { Unrecognised } from "../src/feed/sources/codes.ts";
import { nyc } from "../src/feed/sources/nyc.ts";
import { isPersonName } from "../src/feed/sources/nycNames.ts";
import { stageFile } from "../src/feed/sources/stage.ts";
import type { Body } from "./bodies.ts";
import { counts, emptyDatabase, fresh, importText, readCount, stream } from "./feeds.ts";
import master from "./fixtures/sources/nyc-master.json?raw";
import parties from "./fixtures/sources/nyc-parties.csv?raw";
import references from "./fixtures/sources/nyc-references.json?raw";
import { get, getJson, registerKeys, shardDatabases, testAddress } from "./helpers.ts";

const db = shardDb(shardDatabases);

/** Stages `files` (name and text), then assembles and loads what changed, as `npm run import -- --source nyc-acris` does. */
async function load(files: [string, string][]) {
  const rejects: Reject[] = [];
  const warnings: Warning[] = [];
  const unrecognised = new Unrecognised();
  const rows = [];
  for (const [file, text] of files) {
    const staged = await stageFile(db, nyc, file, stream(text), { onReject: (r) => void rejects.push(r) });
    rows.push(staged);
    await advanceThrough(db, nyc, staged.newest);
  }
  let summary = emptySummary();
  for (let after = ""; ; ) {
    const step = await assembleStep(shardDatabases, nyc, after, {
      unrecognised,
      onReject: (r) => void rejects.push(r),
      onWarning: (w) => void warnings.push(w),
    });
    if (step.last === null) break;
    after = step.last;
    summary = sumOf(summary, step.summary);
  }
  await finishLoad(shardDatabases, nyc, "test nyc-acris", summary, new Date());
  return { rows, summary, rejects, warnings, unrecognised: unrecognised.toJSON() };
}

async function lookup(number: string) {
  const res = await get(fresh(`/filings?initial_financing_number=${encodeURIComponent(number)}&state=NY`), null, {
    headers: { "cf-connecting-ip": testAddress(readCount()) },
  });
  expect(res.status).toBe(200);
  const [filing] = (await res.json<Body<"/filings">>()).ucc_liens;
  if (!filing) throw new Error(`no filing NY ${number}`);
  return filing;
}

const numbersOf = (name: string) =>
  getJson(fresh(`/debtors/search?name=${encodeURIComponent(name)}&state=NY`) as "/debtors/search").then((b) =>
    b.ucc_liens.map((l) => l.initial_financing_number),
  );

const changes = () =>
  getJson(fresh("/filings/changes?state=NY") as "/filings/changes").then((b) =>
    b.changes.map((c) => [c.type, c.initial_financing_number]),
  );

const FILES: [string, string][] = [
  // Parties and references before their documents: each waits for the row that names its filing.
  ["nbbg-wtuz.csv", parties],
  ["6y3e-jcrc.json", references],
  ["sv7x-dduq.json", master],
];

let first: Awaited<ReturnType<typeof load>>;

beforeAll(async () => {
  await registerKeys();
  await emptyDatabase();
  first = await load(FILES);
});

describe("New York City's register (ACRIS personal property: Master, Parties, References)", () => {
  it("tells each file's table by its columns and joins rows read before their documents", async () => {
    expect(first.rows.map((r) => [r.table?.tab, r.rows, r.changed, r.rejected])).toEqual([
      ["nyc_parties", 24, 24, 0],
      ["nyc_references", 7, 7, 0],
      ["nyc_master", 13, 13, 0],
    ]);
    // Six filings; an amendment of a filing the register does not hold waits as an amendment line.
    expect(first.summary).toEqual(counts({ read: 7, inserted: 6, amendments: 1, pending: 1 }));
    expect(first.rejects).toEqual([]);
    expect(first.warnings.find((w) => w.amendment === "2025000200600")).toMatchObject({ filing: "NY 2020000099999" });
    expect(first.unrecognised).toEqual({ doc_type: { UCC5: 1 } });
  });

  it("serves a filing as the City Register recorded it: its CRFN, date, office, and its collateral code as text", async () => {
    expect(await lookup("2022000081234")).toMatchObject({
      initial_financing_date: "2022-03-07T00:00:00Z",
      filing_kind: "standard",
      collateral: "Fixture filing",
      filing_office: "New York City Register",
      // The register gives no lapse date: five years from filing, estimated.
      estimated_lien_lapse_date: "2027-03-07",
      lapse_date_source: "estimated",
      involved_parties: {
        debtor_parties: [
          expect.objectContaining({
            name: "HUDSON STREET BAKERY LLC",
            type: "Organization",
            address: expect.objectContaining({ street1: "214 HUDSON ST", city: "NEW YORK", zip_code: "10013" }),
          }),
        ],
      },
    });
    expect(await lookup("2022000200456")).toMatchObject({
      collateral: "Cooperative unit, with a cooperative addendum",
    });
    expect(await lookup("2023000030111")).toMatchObject({ filing_kind: "manufactured_home" });
  });

  it("attaches amendments through each reference: doc_id_ref, crfn and file_nbr", async () => {
    // doc_id_ref: an assignment, whose assignee (party 3) becomes a secured party.
    const assigned = await lookup("2022000081234");
    expect(assigned.amendments).toEqual([
      expect.objectContaining({
        amendment_financing_number: "2025000001100",
        amendment_financing_type_description: "UCC3 ASSIGNMENT",
        amendment_kind: "assignment",
      }),
    ]);
    expect(assigned.involved_parties.secured_parties.map((s) => s.name)).toEqual([
      "CITIBANK, N.A.",
      "KEYBANK NATIONAL ASSOCIATION",
    ]);
    // crfn: a release of a federal lien ends it.
    expect(await lookup("2019000380789")).toMatchObject({
      filing_kind: "federal_tax_lien",
      estimated_lien_status: "Terminated",
      amendments: [
        expect.objectContaining({ amendment_financing_number: "2024000200200", amendment_kind: "termination" }),
      ],
    });
    // file_nbr: a filing from before ACRIS, numbered by its file number, continued.
    expect(await lookup("12345")).toMatchObject({
      initial_financing_date: "1999-06-01T00:00:00Z",
      estimated_lien_lapse_date: "2009-06-01",
      amendments: [expect.objectContaining({ amendment_financing_number: "54321", amendment_kind: "continuation" })],
    });
    // A type not known here is its code, listed as an amendment.
    expect((await lookup("2023000030111")).amendments).toEqual([
      expect.objectContaining({ amendment_financing_type_description: "UCC5", amendment_kind: "other" }),
    ]);
  });

  it("keeps the estate tax lien a federal tax lien, and an amendment whose reference names nothing loaded waiting", async () => {
    const lien = await lookup("2024000150222");
    expect(lien).toMatchObject({ filing_kind: "federal_tax_lien" });
    // In a lien report of its debtor, a federal tax lien as well.
    const [debtor] = lien.involved_parties.debtor_parties;
    const report = await getJson(
      `/debtors/report?name=${encodeURIComponent(debtor?.name ?? "")}&state=NY` as "/debtors/report",
    );
    expect(report.filings.map((f) => f.initial_financing_number)).toContain("2024000150222");
    expect(report.filings.find((f) => f.initial_financing_number === "2024000150222")?.filing_kind).toBe(
      "federal_tax_lien",
    );
    // The TERM's reference names a document the register has not given: its three rows wait.
    expect(await rowsWaiting(db, nyc)).toBe(3);
  });

  it("tells people (LAST, FIRST MI) from organizations and finds both by name", async () => {
    const coop = await lookup("2022000200456");
    expect(coop.involved_parties.debtor_parties.map((d) => [d.name, d.type])).toEqual([
      ["RIVERA, JOSE", "Individual"],
      ["RIVERA, MARIA L", "Individual"],
      // Added by the amendment.
      ["RIVERA, ANA", "Individual"],
    ]);
    expect(await numbersOf("Maria L Rivera")).toEqual(["2022000200456"]);
    expect(await numbersOf("Ana Rivera")).toEqual(["2022000200456"]);
    expect(await numbersOf("Hudson Street Bakery")).toEqual(["2022000081234"]);
    expect(
      ["CHEN, WEI", "O'BRIEN, PATRICK J. JR", "CITIBANK, N.A.", "ACME HOLDINGS, INC", "COMMISSIONER OF LABOR, NYS"].map(
        isPersonName,
      ),
    ).toEqual([true, true, false, false, false]);
  });

  it("gives NY's data_through from good_through_date, and is NY's backfill: nothing announced", async () => {
    const states = await getJson(fresh("/states") as "/states");
    expect(states.states.find((s) => s.state === "NY")).toMatchObject({ data_through: "2026-10-31" });
    expect(await changes()).toEqual([]);
  });

  it("changes nothing and announces nothing when the same files are loaded again", async () => {
    const again = await load(FILES);
    expect(again.rows.map((r) => r.changed)).toEqual([0, 0, 0]);
    expect(again.summary).toEqual(counts({}));
    expect(await changes()).toEqual([]);
  });
});

describe("after NY's first load", () => {
  it("announces what changed: a termination, and a waiting amendment's filing when it arrives", async () => {
    const later = await load([
      [
        "later-master.json",
        JSON.stringify([
          {
            document_id: "2026110200900001",
            doc_type: "TERM",
            crfn: "2026000400900",
            recorded_datetime: "2026-11-02T00:00:00.000",
          },
          {
            document_id: "2020010100999001",
            doc_type: "INIT",
            crfn: "2020000012999",
            recorded_datetime: "2020-01-01T00:00:00.000",
          },
        ]),
      ],
      ["later-references.json", JSON.stringify([{ document_id: "2026110200900001", doc_id_ref: "2022030700123001" }])],
      [
        "later-parties.json",
        JSON.stringify([{ document_id: "2020010100999001", party_type: "1", name: "ORCHARD STREET DELI INC" }]),
      ],
    ]);
    expect(later.summary).toMatchObject({ inserted: 1, updated: 1, rejected: 0 });
    expect(await rowsWaiting(db, nyc)).toBe(0);
    expect(await lookup("2020000012999")).toMatchObject({
      estimated_lien_status: "Terminated",
      amendments: [expect.objectContaining({ amendment_financing_number: "2025000180500" })],
    });
    expect(await changes()).toEqual(
      expect.arrayContaining([
        ["filing.terminated", "2022000081234"],
        ["filing.created", "2020000012999"],
      ]),
    );
  });

  it("rejects unusable rows by file and line, loads none of a filing it rejects, and says what an empty file is", async () => {
    const bad = await load([
      [
        "bad-master.json",
        JSON.stringify(
          [
            { doc_type: "UCC1", crfn: "2026000000001", recorded_datetime: "2026-01-05T00:00:00.000" },
            {
              document_id: "2026010500000002",
              doc_type: "UCC1",
              crfn: "2026000000002",
              recorded_datetime: "yesterday",
            },
            { document_id: "2026010500000003", crfn: "2026000000003", recorded_datetime: "2026-01-05T00:00:00.000" },
          ],
          null,
          1,
        ),
      ],
      [
        "bad-parties.csv",
        "document_id,party_type,name\n,1,NOBODY LLC\n2026010500000002,1,HALF LOADED LLC\n2099999999999999,1,NEVER RECORDED LLC\n",
      ],
      [
        "bad-references.json",
        JSON.stringify([
          { document_id: "2026010500000005", doc_id_ref: "2022030700123001" },
          { document_id: "2026010500000004" },
        ]),
      ],
    ]);
    expect(bad.rejects.map((r) => [r.file, r.line, r.reason])).toEqual([
      ["bad-master.json", 2, "document_id: missing: the row cannot be told from others"],
      ["bad-master.json", 13, "doc_type: missing: whether the document is a filing or an amendment is unknown"],
      ["bad-parties.csv", 2, "document_id: missing: the document this is a party of is unknown"],
      ["bad-references.json", 1, "file_nbr, doc_id_ref and crfn: missing: the reference names no document"],
      ["bad-master.json", 7, expect.stringMatching(/^line 7 recorded_datetime: "yesterday" is not a timestamp/)],
    ]);
    // The rejected filing is not loaded at all, and its reject carries its rows.
    const res = await get(fresh("/filings?initial_financing_number=2026000000002&state=NY"));
    expect((await res.json<Body<"/filings">>()).ucc_liens).toEqual([]);
    expect(JSON.parse(bad.rejects[4]?.raw ?? "[]")).toHaveLength(2);
    // A party of a document that never appears waits for it, and says where it was read.
    expect(await rowsWaitingAt(db, nyc, 5)).toEqual([
      { tab: "nyc_parties", file: "bad-parties.csv", line: 4, part: "2099999999999999" },
    ]);
    await expect(stageFile(db, nyc, "empty.json", stream(""), {})).rejects.toThrow(
      new FeedFileError("empty: not a JSON array of rows"),
    );
    await expect(stageFile(db, nyc, "empty.csv", stream(""), {})).rejects.toThrow(FeedFileError);
  });

  it("attaches an amendment by the document id its reference names, when the reference carries the file number of a filing numbered by its CRFN", async () => {
    await load([
      [
        "both-master.json",
        JSON.stringify([
          {
            document_id: "2021010100001001",
            doc_type: "UCC1",
            crfn: "2021000000001",
            file_nbr: "700001",
            recorded_datetime: "2021-01-01T00:00:00.000",
          },
          {
            document_id: "2025070100001001",
            doc_type: "CONT",
            crfn: "2025000000001",
            file_nbr: "700002",
            recorded_datetime: "2025-07-01T00:00:00.000",
          },
        ]),
      ],
      [
        "both-references.json",
        JSON.stringify([
          {
            document_id: "2025070100001001",
            doc_id_ref: "2021010100001001",
            crfn: "2021000000001",
            file_nbr: "700001",
          },
        ]),
      ],
      [
        "both-parties.json",
        JSON.stringify([{ document_id: "2021010100001001", party_type: "1", name: "ALPHA ONE LLC" }]),
      ],
    ]);
    expect(await lookup("2021000000001")).toMatchObject({
      estimated_lien_status: "Active",
      estimated_lien_lapse_date: "2031-01-01",
      amendments: [
        expect.objectContaining({ amendment_financing_number: "2025000000001", amendment_kind: "continuation" }),
      ],
    });
  });

  it("stages again, by the key rule of now, a row read again unchanged that was staged by an older one", async () => {
    const reference = {
      document_id: "2025070100003001",
      doc_id_ref: "2021010100003001",
      crfn: "2021000000003",
      file_nbr: "700031",
    };
    const file: [string, string] = ["rekey-references.json", JSON.stringify([reference])];
    await load([file]);
    const staged = () =>
      db
        .select({ part: sourceRows.part, filing: sourceRows.filing })
        .from(sourceRows)
        .where(and(eq(sourceRows.source, nyc.id), sql`${sourceRows.rowId} like '2025070100003001/%'`));
    expect(await staged()).toEqual([{ part: "2021010100003001", filing: null }]);
    // As the rule before staged it: by its file number, with no part.
    await db
      .update(sourceRows)
      .set({ part: null, filing: "700031" })
      .where(and(eq(sourceRows.source, nyc.id), sql`${sourceRows.rowId} like '2025070100003001/%'`));
    // Read again: staged by its document id, the filing its links give (none: that document is not read).
    await load([file]);
    expect(await staged()).toEqual([{ part: "2021010100003001", filing: null }]);
  });

  it("leaves NY's filings from other feeds as they were: a CRFN is 13 digits, other NY numbers are not", async () => {
    const other = {
      initial_financing_number: "20240315001007",
      jurisdiction_state: "NY",
      initial_financing_date: "2024-03-15T14:02:11Z",
      involved_parties: { debtor_parties: [{ name: "HUDSON STREET BAKERY LLC", type: "Organization" }] },
    };
    expect((await importText("ny.ndjson", `${JSON.stringify(other)}\n`)).summary).toMatchObject({ inserted: 1 });
    await load(FILES.map(([file, text]) => [file, text.replaceAll("HUDSON ST", "HUDSON STREET")]));
    expect(await lookup("20240315001007")).toMatchObject({ filing_office: null, amendments: [] });
    expect((await numbersOf("Hudson Street Bakery")).sort()).toEqual(["2022000081234", "20240315001007"]);
  });
});

describe("references that name an amendment", () => {
  const doc = (document_id: string, doc_type: string, crfn: string, day: string) => ({
    document_id,
    doc_type,
    crfn,
    recorded_datetime: `${day}T00:00:00.000`,
  });
  const debtorAndLender = (document_id: string, debtor: string, lender: string) => [
    { document_id, party_type: "1", name: debtor },
    { document_id, party_type: "2", name: lender },
  ];
  const files = (master: object[], refs: object[], parties: object[] = []): [string, string][] => [
    ["chain-master.json", JSON.stringify(master)],
    ["chain-references.json", JSON.stringify(refs)],
    ...(parties.length ? [["chain-parties.json", JSON.stringify(parties)] as [string, string]] : []),
  ];
  /** Filing `number` as served: its status, and its amendments' numbers and kinds. */
  const served = async (number: string) => {
    const filing = await lookup(number);
    return {
      status: filing.estimated_lien_status,
      amendments: filing.amendments.map((a) => [a.amendment_financing_number, a.amendment_kind]),
    };
  };

  /** A federal lien (FL), its release (RFL), and the release's revocation (RCRFL), which names the release. */
  const chain = (n: string) => ({
    lien: doc(`20190000000${n}001`, "FL", `20190000000${n}`, "2019-01-01"),
    release: doc(`20200000000${n}001`, "RFL", `20200000000${n}`, "2020-01-01"),
    revocation: doc(`20210000000${n}001`, "RCRFL", `20210000000${n}`, "2021-01-01"),
    releaseNames: { document_id: `20200000000${n}001`, doc_id_ref: `20190000000${n}001` },
    revocationNames: { document_id: `20210000000${n}001`, doc_id_ref: `20200000000${n}001` },
    parties: debtorAndLender(`20190000000${n}001`, `LIEN ${n} LLC`, "INTERNAL REVENUE SERVICE"),
  });
  const revived = async (n: string) =>
    expect(await served(`20190000000${n}`)).toEqual({
      status: "Active",
      amendments: [
        [`20200000000${n}`, "termination"],
        [`20210000000${n}`, "reinstatement"],
      ],
    });

  it("revive a released lien in the load that reads the lien, its release and the release's revocation", async () => {
    const { lien, release, revocation, releaseNames, revocationNames, parties } = chain("71");
    await load(files([lien, release, revocation], [releaseNames, revocationNames], parties));
    await revived("71");
  });

  it("revive it as well when the revocation comes first, then the release, then the lien, each in its own load", async () => {
    const { lien, release, revocation, releaseNames, revocationNames, parties } = chain("72");
    await load(files([revocation], [revocationNames]));
    await load(files([release], [releaseNames]));
    await load(files([lien], [], parties));
    await revived("72");
  });

  it("continue a filing through a continuation naming the one before it by CRFN, and revive a lien whose revocation names its release by CRFN, in any order", async () => {
    // A UCC1, its continuation (naming the UCC1's CRFN) and the next (naming the continuation's CRFN).
    const continued = (n: string) => ({
      filing: doc(`20140000000${n}001`, "UCC1", `20140000000${n}`, "2014-01-01"),
      first: doc(`20180000000${n}001`, "CONT", `20180000000${n}`, "2018-08-01"),
      second: doc(`20230000000${n}001`, "CONT", `20230000000${n}`, "2023-08-01"),
      firstNames: { document_id: `20180000000${n}001`, crfn: `20140000000${n}` },
      secondNames: { document_id: `20230000000${n}001`, crfn: `20180000000${n}` },
      parties: debtorAndLender(`20140000000${n}001`, `EPSILON ${n} LLC`, "ALLY BANK"),
    });
    const loads = {
      // All in one load; the last continuation first and the filing last; the filing, then the last, then the one between.
      "81": (c: ReturnType<typeof continued>) => [
        files([c.filing, c.first, c.second], [c.firstNames, c.secondNames], c.parties),
      ],
      "82": (c: ReturnType<typeof continued>) => [
        files([c.second], [c.secondNames]),
        files([c.first], [c.firstNames]),
        files([c.filing], [], c.parties),
      ],
      "83": (c: ReturnType<typeof continued>) => [
        files([c.filing], [], c.parties),
        files([c.second], [c.secondNames]),
        files([c.first], [c.firstNames]),
      ],
    };
    for (const [n, order] of Object.entries(loads)) {
      for (const f of order(continued(n))) await load(f);
      const filing = await lookup(`20140000000${n}`);
      expect([filing.estimated_lien_status, filing.estimated_lien_lapse_date], n).toEqual(["Active", "2029-01-01"]);
      expect((await served(`20140000000${n}`)).amendments, n).toEqual([
        [`20180000000${n}`, "continuation"],
        [`20230000000${n}`, "continuation"],
      ]);
    }
    const { lien, release, revocation, parties } = chain("74");
    await load(
      files(
        [lien, release, revocation],
        [
          { document_id: release.document_id, crfn: lien.crfn },
          { document_id: revocation.document_id, crfn: release.crfn },
        ],
        parties,
      ),
    );
    await revived("74");
  });

  it("assemble again the filing an amendment leaves: a termination corrected in place to a filing of its own, or re-pointed by a reference read later, no longer ends it", async () => {
    const active = (n: string) =>
      lookup(n).then((f) => [f.estimated_lien_status, f.amendments.map((a) => a.amendment_financing_number)]);
    // The register corrects the document in place: a UCC1 of its own (its reference row stays staged).
    await load(
      files(
        [
          doc("2023010100021001", "UCC1", "2023000000021", "2023-01-01"),
          doc("2025010100022001", "TERM", "2025000000022", "2025-01-01"),
        ],
        [{ document_id: "2025010100022001", doc_id_ref: "2023010100021001" }],
        debtorAndLender("2023010100021001", "TWENTY ONE LLC", "ALLY BANK"),
      ),
    );
    expect((await lookup("2023000000021")).estimated_lien_status).toBe("Terminated");
    await load(
      files(
        [doc("2025010100022001", "UCC1", "2025000000022", "2025-01-01")],
        [],
        debtorAndLender("2025010100022001", "TWENTY TWO LLC", "ALLY BANK"),
      ),
    );
    expect(await active("2023000000021")).toEqual(["Active", []]);
    expect(await active("2025000000022")).toEqual(["Active", []]);
    // A reference read later names another filing and is taken (both name filings held here; its row id sorts first).
    await load(
      files(
        [
          doc("2021010100013001", "UCC1", "2023000000013", "2023-01-01"),
          doc("2021010100014001", "UCC1", "2023000000014", "2023-01-01"),
          doc("2024010100013001", "TERM", "2025000000013", "2025-01-01"),
        ],
        [{ document_id: "2024010100013001", record_type: "X", doc_id_ref: "2021010100014001" }],
        [
          ...debtorAndLender("2021010100013001", "THIRTEEN LLC", "ALLY BANK"),
          ...debtorAndLender("2021010100014001", "FOURTEEN LLC", "ALLY BANK"),
        ],
      ),
    );
    expect((await lookup("2023000000014")).estimated_lien_status).toBe("Terminated");
    await load(files([], [{ document_id: "2024010100013001", record_type: "X", doc_id_ref: "2021010100013001" }]));
    expect(await active("2023000000013")).toEqual(["Terminated", ["2025000000013"]]);
    expect(await active("2023000000014")).toEqual(["Active", []]);
  });

  it("end a filing whose termination names it and its continuation by CRFN, whatever order the references hash in", async () => {
    // The two documents' ids order their references differently: either way the filing's own CRFN is the one taken.
    for (const n of ["03", "13"]) {
      await load(
        files(
          [
            doc(`20180000000${n}001`, "UCC1", `20180000000${n}`, "2018-01-03"),
            doc(`20220000000${n}001`, "CONT", `20220000000${n}`, "2022-01-03"),
            doc(`20240000000${n}001`, "TERM", `20240000000${n}`, "2024-01-03"),
          ],
          [
            { document_id: `20220000000${n}001`, crfn: `20180000000${n}` },
            { document_id: `20240000000${n}001`, crfn: `20180000000${n}` },
            { document_id: `20240000000${n}001`, crfn: `20220000000${n}` },
          ],
          debtorAndLender(`20180000000${n}001`, `GAMMA ${n} LLC`, "ALLY BANK"),
        ),
      );
      expect(await served(`20180000000${n}`), n).toEqual({
        status: "Terminated",
        amendments: [
          [`20220000000${n}`, "continuation"],
          [`20240000000${n}`, "termination"],
        ],
      });
    }
  });

  it("end it as well when the termination and continuation come a load before the filing", async () => {
    await load(
      files(
        [
          doc("2022000000023001", "CONT", "2022000000023", "2022-01-03"),
          doc("2024000000023001", "TERM", "2024000000023", "2024-01-03"),
        ],
        [
          { document_id: "2022000000023001", crfn: "2018000000023" },
          { document_id: "2024000000023001", crfn: "2018000000023" },
          { document_id: "2024000000023001", crfn: "2022000000023" },
        ],
      ),
    );
    await load(
      files(
        [doc("2018000000023001", "UCC1", "2018000000023", "2018-01-03")],
        [],
        debtorAndLender("2018000000023001", "DELTA TWENTY THREE LLC", "ALLY BANK"),
      ),
    );
    expect(await served("2018000000023")).toEqual({
      status: "Terminated",
      amendments: [
        ["2022000000023", "continuation"],
        ["2024000000023", "termination"],
      ],
    });
  });
});
