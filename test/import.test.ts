/**
 * Importing feeds (src/feed) into the test D1 database through
 * upsertFilings, then reading them back through the API, as a client would.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateFilings } from "../seed/generate.ts";
import type { FilingRecord } from "../src/db/records.ts";
import { isoSeconds } from "../src/domain/time.ts";
import { exportFilings, feedLine, lienLine } from "../src/feed/export.ts";
import { readFeed } from "../src/feed/read.ts";
import { importSharded } from "../src/feed/shardedImport.ts";
import { type Body, firstOf, withMetadata } from "./bodies.ts";
import { counts, emptyDatabase, fresh, importText, readCount, stream } from "./feeds.ts";
import feedCsv from "./fixtures/feed.csv?raw";
import feedNdjson from "./fixtures/feed.ndjson?raw";
import mixedNdjson from "./fixtures/mixed.ndjson?raw";
import { daysAgo, dbOf, get, getJson, registerKeys, shardDatabases, testAddress } from "./helpers.ts";

async function records(file: string, text: string): Promise<FilingRecord[]> {
  const out: FilingRecord[] = [];
  for await (const item of readFeed(file, stream(text))) {
    if ("record" in item) out.push(item.record);
  }
  return out;
}

/** Deletes every row of every table, leaving the migrated schema: an empty database. */

/** A body without what differs from one response to the next. */
function stable(response: unknown) {
  const body = withMetadata.parse(response);
  const { request_id: _, timestamp: __, data_source_last_updated: ___, ...metadata } = body.response_metadata;
  return { ...body, response_metadata: metadata };
}

/** GET /filings (public; each read from its own client address, clear of the per-address limit). */
async function lookup(number: string, state: string) {
  const res = await get(fresh(`/filings?initial_financing_number=${encodeURIComponent(number)}&state=${state}`), null, {
    headers: { "cf-connecting-ip": testAddress(readCount()) },
  });
  expect(res.status).toBe(200);
  return res.json<Body<"/filings">>();
}

async function snapshot(paths: string[]) {
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    out[path] = stable(path.startsWith("/filings?") ? await keyless(path) : await getJson(fresh(path)));
  }
  return out;
}

async function keyless(path: string) {
  const res = await get(fresh(path), null, { headers: { "cf-connecting-ip": testAddress(readCount()) } });
  expect(res.status).toBe(200);
  return res.json<Body<"/filings">>();
}

/** The feed line as the public lookup shows it: without the addresses' street2, which only feeds carry. */
/** A feed line as the API serves it: without street2, and with a lender's role rather than its own type. */
function asServed(record: FilingRecord, today: string) {
  const lien = lienLine(record, today);
  const address = ({ street2: __, ...a }: { street2: string | null }) => a;
  return {
    ...lien,
    involved_parties: {
      debtor_parties: lien.involved_parties.debtor_parties.map((p) => ({ ...p, address: address(p.address) })),
      secured_parties: lien.involved_parties.secured_parties.map((p) => ({
        ...p,
        type: "Secured Party",
        address: address(p.address),
      })),
    },
  };
}

const today = () => isoSeconds(Date.now()).slice(0, 10);

beforeAll(registerKeys);

describe("importing an NDJSON feed", () => {
  let first: Awaited<ReturnType<typeof importText>>;

  beforeAll(async () => {
    await emptyDatabase();
    first = await importText("feed.ndjson", feedNdjson);
  });

  it("loads every filing of the feed and reports them inserted", () => {
    expect(first.summary).toEqual(counts({ read: 5, inserted: 5 }));
    expect(first.rejects).toEqual([]);
  });

  it("serves each filing from the public lookup exactly as the feed line reads back", async () => {
    for (const record of await records("feed.ndjson", feedNdjson)) {
      const body = await lookup(record.number, record.state);
      expect(body.ucc_liens).toEqual([asServed(record, today())]);
    }
  });

  it("normalizes names, codes, timestamps and labels on the way in", async () => {
    const ca = firstOf((await lookup("U250012345678", "CA")).ucc_liens);
    const [debtor, owner] = ca.involved_parties.debtor_parties;
    expect(debtor?.name).toBe("Sanchez & Sons Cafe, LLC");
    expect(debtor?.category).toBe("Food & Beverage");
    expect(debtor?.address).toMatchObject({ street1: "1200 Mission St", state: "CA", zip_code: "94103-1234" });
    expect(owner).toMatchObject({ name: "Maria L. Sanchez", type: "Individual", category: "Individual" });
    expect(ca.involved_parties.secured_parties[0]?.name).toBe("Wells Fargo Bank, N.A.");
    expect(ca.amendments[0]?.amendment_financing_date).toBe("2025-05-01T10:00:00Z");

    const tx = firstOf((await lookup("25-0000123456", "TX")).ucc_liens);
    expect(tx).toMatchObject({ initial_financing_date: "2025-01-02T09:15:00Z", jurisdiction_state: "TX" });
    expect(tx.involved_parties.debtor_parties[0]?.name).toBe("ACME WIDGETS, INC.");
    expect(tx.involved_parties.secured_parties[0]?.category).toBe("Secured Party");

    const fl = firstOf((await lookup("202100004567", "FL")).ucc_liens);
    expect(fl.initial_financing_date).toBe("2021-06-01T10:00:00Z");
  });

  it("takes the filing kind from filing_kind, or else from the lapse date the feed gives", async () => {
    const lapse = async (number: string, state: string) =>
      (await lookup(number, state)).ucc_liens[0]?.estimated_lien_lapse_date;
    expect(await lapse("25-0000123456", "TX")).toBe("2030-01-02"); // no lapse date: standard
    expect(await lapse("2020011500001234", "NY")).toBeNull(); // null: transmitting utility
    expect(await lapse("202100004567", "FL")).toBe("2051-06-01"); // filing_kind: manufactured home
    expect(await lapse("OH-2019-0042", "OH")).toBe("2049-04-10"); // thirty years: public finance
  });

  it("finds an imported debtor by exact name (/debtors/search)", async () => {
    const body = await getJson(fresh("/debtors/search?name=sanchez%20and%20sons%20cafe&state=ca"));
    expect(body.pagination.total_results).toBe(1);
    expect(body.ucc_liens[0]).toMatchObject({
      initial_financing_number: "U250012345678",
      initial_financing_date: "2025-03-14T16:20:05Z",
      jurisdiction_state: "CA",
    });
    expect(body.ucc_liens[0]?.involved_parties.debtor_parties.map((d) => d.debtor_industry)).toEqual([
      "Food & Beverage",
      "Individual",
    ]);
  });

  const paths = [
    "/filings?initial_financing_number=U250012345678&state=CA",
    "/filings?initial_financing_number=25-0000123456&state=TX",
    "/filings?initial_financing_number=2020011500001234&state=NY",
    "/filings?initial_financing_number=202100004567&state=FL",
    "/filings?initial_financing_number=OH-2019-0042&state=OH",
    "/debtors/search?name=Sanchez%20%26%20Sons%20Cafe&state=CA",
    "/debtors/addresses?name=Maria%20L.%20Sanchez",
    "/debtors/associated/?name=Maria%20L.%20Sanchez&state=CA",
    "/debtors/search-similar?name=Sanches%20and%20Son%20Cafe",
    "/filings/recently-terminated?state=CA",
  ];

  it("changes nothing when the same feed is imported again", async () => {
    const before = await snapshot(paths);
    const again = await importText("feed.ndjson", feedNdjson);
    expect(again.summary).toEqual(counts({ read: 5, unchanged: 5 }));
    expect(await snapshot(paths)).toEqual(before);
  });

  it("applies an update file to the filings it changes and leaves the others alone", async () => {
    const before = await snapshot(paths);
    const terminatedAt = daysAgo(2);
    const lines = feedNdjson
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    lines[0].amendments.push({
      amendment_financing_number: "U250098765499",
      amendment_financing_date: terminatedAt,
      amendment_financing_type_description: "Termination",
    });
    lines[1].amendments = [
      {
        amendment_financing_number: "25-0000200001",
        amendment_financing_date: "2025-02-01 08:00:00",
        amendment_financing_type_description: "Assignment",
      },
    ];
    const update = await importText("update.ndjson", lines.map((l) => JSON.stringify(l)).join("\n"));
    expect(update.summary).toEqual(counts({ read: 5, updated: 2, unchanged: 3 }));

    const ca = firstOf((await lookup("U250012345678", "CA")).ucc_liens);
    expect(ca.estimated_lien_status).toBe("Terminated");
    expect(ca.amendments.map((a) => a.amendment_financing_type_description)).toEqual([
      "Amendment - Collateral",
      "Termination",
    ]);
    const terminated = await getJson(fresh("/filings/recently-terminated?state=CA"));
    expect(terminated.terminated_filings).toEqual([
      expect.objectContaining({ initial_financing_number: "U250012345678", termination_date: terminatedAt }),
    ]);
    const tx = firstOf((await lookup("25-0000123456", "TX")).ucc_liens);
    expect(tx.amendments).toEqual([
      {
        amendment_financing_number: "25-0000200001",
        amendment_financing_date: "2025-02-01T08:00:00Z",
        amendment_financing_type_description: "Assignment",
        amendment_kind: "assignment",
        amendment_lapse_date: null,
        amendment_collateral: null,
      },
    ]);
    // Only the two filings and the list of terminations changed.
    const after = await snapshot(paths);
    const changed = paths.filter((p) => JSON.stringify(after[p]) !== JSON.stringify(before[p]));
    expect(changed).toEqual([paths[0], paths[1], "/filings/recently-terminated?state=CA"]);
  });
});

describe("importing a feed with bad lines", () => {
  let result: Awaited<ReturnType<typeof importText>>;

  beforeAll(async () => {
    await emptyDatabase();
    result = await importText("mixed.ndjson", mixedNdjson);
  });

  it("loads every usable filing, with warnings for its gaps, and rejects only the unusable", async () => {
    expect(result.summary).toEqual(counts({ read: 10, inserted: 5, rejected: 5, warned: 1 }));
    for (const number of ["MIX-1", "MIX-3", "MIX-5", "MIX-9", "MIX-10"]) {
      expect((await lookup(number, "OR")).ucc_liens).toHaveLength(1);
    }
    for (const number of ["MIX-4", "MIX-6", "MIX-8"]) {
      expect((await lookup(number, "OR")).ucc_liens).toEqual([]);
    }
  });

  it("keeps a ZIP it cannot read as given and an unknown amendment kind as other", async () => {
    const short = firstOf((await lookup("MIX-3", "OR")).ucc_liens);
    expect(short.involved_parties.debtor_parties[0]?.address).toMatchObject({ zip_code: "9740", state: "OR" });
    expect(result.warnings).toEqual([
      {
        file: "mixed.ndjson",
        line: 3,
        filing: "OR MIX-3",
        reason:
          'involved_parties.debtor_parties[0].address.zip_code: "9740" is not a US ZIP code (five digits or ZIP+4); kept as given, not searchable by postal code',
      },
    ]);
    const lapse = firstOf((await lookup("MIX-9", "OR")).ucc_liens);
    expect(lapse.estimated_lien_status).toBe("Active");
    expect(lapse.amendments).toMatchObject([
      { amendment_financing_type_description: "Lapse notice", amendment_kind: "other" },
    ]);
  });

  it("counts an amendment kept for its filing as waiting no more once a later group of the run brings the filing", async () => {
    const line = JSON.parse(firstOf(mixedNdjson.split("\n")));
    const late = { ...line, initial_financing_number: "MIX-LATE-A", amendments: [] };
    const other = { ...late, initial_financing_number: "MIX-LATE-B" };
    const continuation = {
      initial_financing_number: "MIX-LATE-A",
      jurisdiction_state: line.jurisdiction_state,
      amendment_financing_number: "MIX-LATE-A-C",
      amendment_financing_date: daysAgo(3),
      amendment_financing_type_description: "Continuation",
    };
    // Groups of two: the amendment and another filing, then its filing.
    const text = [continuation, other, late].map((l) => JSON.stringify(l)).join("\n");
    const summary = await importSharded(shardDatabases, "late.ndjson", stream(text), { groupSize: 2 });
    expect(summary).toMatchObject({ inserted: 2, amendments: 1, pending: 0 });
    const [filing] = (await lookup("MIX-LATE-A", line.jurisdiction_state)).ucc_liens;
    expect(filing?.amendments.map((a) => a.amendment_financing_number)).toEqual(["MIX-LATE-A-C"]);
  });

  it("serves a lien whose termination came without a date as terminated, the termination dated as its filing", async () => {
    const line = JSON.parse(firstOf(mixedNdjson.split("\n")));
    const filed = daysAgo(400);
    const termination = {
      amendment_financing_number: "MIX-UNDATED-T",
      amendment_financing_type_description: "Termination",
    };
    const lien = {
      ...line,
      initial_financing_number: "MIX-UNDATED",
      initial_financing_date: filed,
      amendments: [termination],
    };
    const loaded = await importText("undated.ndjson", JSON.stringify(lien));
    expect(loaded.summary).toMatchObject({ inserted: 1, rejected: 0, warned: 1 });
    const [served] = (await lookup("MIX-UNDATED", line.jurisdiction_state)).ucc_liens;
    expect(served?.estimated_lien_status).toBe("Terminated");
    expect(served?.amendments).toMatchObject([
      { amendment_financing_number: "MIX-UNDATED-T", amendment_kind: "termination", amendment_financing_date: filed },
    ]);
  });

  it("serves a tax lien whose release was revoked, and one terminated and reinstated the same day in either order, as active", async () => {
    const line = JSON.parse(firstOf(mixedNdjson.split("\n")));
    const amendment = (number: string, date: string, description: string) => ({
      amendment_financing_number: number,
      amendment_financing_date: date,
      amendment_financing_type_description: description,
    });
    const lien = (number: string, amendments: unknown[]) => ({
      ...line,
      initial_financing_number: number,
      initial_financing_date: daysAgo(900),
      filing_kind: "Federal Tax Lien",
      amendments,
    });
    const released = amendment("REV-1-R", daysAgo(300), "Certificate of Release of Federal Tax Lien");
    const revoked = amendment("REV-1-V", daysAgo(200), "Revocation of Certificate of Release");
    const ended = amendment("REV-2-T", daysAgo(100), "Termination");
    const undone = amendment("REV-2-R", daysAgo(100), "Reinstatement");
    const text = [lien("REV-1", [released, revoked]), lien("REV-2", [undone])].map((l) => JSON.stringify(l)).join("\n");
    await importText("revoked.ndjson", text);
    // The termination arrives in a later file than the reinstatement that revokes it.
    await importText("later.ndjson", JSON.stringify(lien("REV-2", [undone, ended])));
    for (const number of ["REV-1", "REV-2"]) {
      const [served] = (await lookup(number, line.jurisdiction_state)).ucc_liens;
      expect(served?.estimated_lien_status, number).toBe("Active");
    }
  });

  it("reads a filing kind given as the UCC-1's label", async () => {
    const line = JSON.parse(firstOf(mixedNdjson.split("\n")));
    const filed = "2019-03-01T00:00:00Z";
    const kinds = {
      "KIND-MH": "Manufactured-Home Transaction",
      "KIND-PF": "Public-Finance Transaction",
      "KIND-TU": "A Debtor is a Transmitting Utility",
    };
    const text = Object.entries(kinds)
      .map(([number, kind]) =>
        JSON.stringify({
          ...line,
          initial_financing_number: number,
          initial_financing_date: filed,
          filing_kind: kind,
          amendments: [],
        }),
      )
      .join("\n");
    expect((await importText("kinds.ndjson", text)).warnings).toEqual([]);
    const served = async (number: string) => firstOf((await lookup(number, line.jurisdiction_state)).ucc_liens);
    expect(await served("KIND-MH")).toMatchObject({
      estimated_lien_lapse_date: "2049-03-01",
      estimated_lien_status: "Active",
    });
    expect(await served("KIND-PF")).toMatchObject({
      estimated_lien_lapse_date: "2049-03-01",
      estimated_lien_status: "Active",
    });
    expect(await served("KIND-TU")).toMatchObject({ estimated_lien_lapse_date: null, estimated_lien_status: "Active" });
  });

  it("cuts an over-long name before a character it would split, so a second load finds the filing unchanged", async () => {
    const line = JSON.parse(firstOf(mixedNdjson.split("\n")));
    const debtor = line.involved_parties.debtor_parties[0];
    const long = {
      ...line,
      initial_financing_number: "MIX-EMOJI",
      involved_parties: {
        ...line.involved_parties,
        debtor_parties: [{ ...debtor, name: `${"A".repeat(999)}\u{1F600} Trust` }],
      },
    };
    const first = await importText("emoji.ndjson", JSON.stringify(long));
    expect(first.summary).toMatchObject({ inserted: 1 });
    const again = await importText("emoji.ndjson", JSON.stringify(long));
    expect(again.summary).toMatchObject({ inserted: 0, updated: 0, unchanged: 1 });
    const [filing] = (await lookup("MIX-EMOJI", long.jurisdiction_state)).ucc_liens;
    expect(filing?.involved_parties.debtor_parties[0]?.name).toBe("A".repeat(999));
  });

  it("loads a filing of more than 200 debtors with its first 200, and of more than 500 amendments with its newest", async () => {
    const line = JSON.parse(firstOf(mixedNdjson.split("\n")));
    const debtor = line.involved_parties.debtor_parties[0];
    const crowded = {
      ...line,
      initial_financing_number: "MIX-CROWD",
      involved_parties: {
        ...line.involved_parties,
        debtor_parties: Array.from({ length: 201 }, (_, i) => ({ ...debtor, name: `Crowd Member ${i + 1} LLC` })),
      },
      amendments: Array.from({ length: 501 }, (_, i) => ({
        amendment_financing_number: `MIX-CROWD-A${i}`,
        amendment_financing_date: new Date(Date.parse(line.initial_financing_date) + (i + 1) * 60_000).toISOString(),
        amendment_financing_type_description: i === 500 ? "Termination" : "Amendment",
      })),
    };
    const loaded = await importText("crowded.ndjson", JSON.stringify(crowded));
    expect(loaded.summary).toEqual(counts({ read: 1, inserted: 1, warned: 1 }));
    const [filing] = (await lookup("MIX-CROWD", crowded.jurisdiction_state)).ucc_liens;
    expect(filing?.involved_parties.debtor_parties).toHaveLength(200);
    expect(filing?.amendments).toHaveLength(500);
    expect(filing?.estimated_lien_status).toBe("Terminated");
  });

  it("rejects each unusable line with its line number, a readable reason and the line itself", () => {
    const lines = mixedNdjson.split("\n");
    expect(result.rejects.map((r) => [r.line, r.reason])).toEqual([
      [2, expect.stringMatching(/^not valid JSON: /)],
      [4, 'jurisdiction_state: "XX" is not a US state or territory code'],
      [6, expect.stringMatching(/^initial_financing_date: "2025-02-30T10:00:00Z" is not a timestamp/)],
      [8, "involved_parties.debtor_parties: must name at least one debtor with a name"],
      [11, "filing: must be a JSON object (one filing)"],
    ]);
    for (const r of result.rejects) {
      expect(r.file).toBe("mixed.ndjson");
      expect(r.raw).toBe(lines[r.line - 1]);
    }
  });
});

describe("importing a CSV feed", () => {
  let result: Awaited<ReturnType<typeof importText>>;

  beforeAll(async () => {
    await emptyDatabase();
    result = await importText("feed.csv", feedCsv);
  });

  it("makes one filing of each run of rows, with its parties and amendments in row order", async () => {
    expect(result.summary).toEqual(counts({ read: 2, inserted: 2 }));
    const ga = firstOf((await lookup("202500001234", "GA")).ucc_liens);
    expect(ga.initial_financing_date).toBe("2025-02-03T14:00:00Z");
    expect(ga.involved_parties.debtor_parties.map((d) => [d.name, d.type, d.category])).toEqual([
      ["Peach State Logistics, Inc.", "Organization", "Transportation & Logistics"],
      ["Dana Whitfield", "Individual", "Individual"],
    ]);
    expect(ga.involved_parties.secured_parties).toMatchObject([{ name: "Truist Bank, as Agent", category: "Bank" }]);
    expect(ga.amendments).toEqual([
      {
        amendment_financing_number: "202500009999",
        amendment_financing_date: "2025-04-01T09:00:00Z",
        amendment_financing_type_description: "Continuation",
        amendment_kind: "continuation",
        amendment_lapse_date: null,
        amendment_collateral: null,
      },
    ]);
    const wa = firstOf((await lookup("25-0001234-A", "WA")).ucc_liens);
    expect(wa.involved_parties.debtor_parties[0]?.name).toBe('The "Blue" Door Bakery LLC');
    expect(wa.estimated_lien_status).toBe("Terminated");
    expect(wa.amendments).toHaveLength(2);
  });

  it("keeps a quoted field that spans lines, as one line of text", async () => {
    const body = await getJson(fresh("/debtors/associated/?name=Peach%20State%20Logistics&state=GA"));
    expect(body.associated_debtors).toEqual([
      {
        debtor_name: "Dana Whitfield",
        address: {
          street_address_1: "12 Elm St",
          street_address_2: "Apt 4 Rear",
          city: "Decatur",
          state: "GA",
          postal_code: "30030",
        },
      },
    ]);
  });

  it("applies a later file's run of amendment rows to its filing, though the rows repeat the filing's date", async () => {
    const header = firstOf(feedCsv.split("\n"));
    const rows = [
      "GA,202500001234,2025-02-03 14:00:00,,amendment,,,,,,,,,,202500010001,2025-05-01 10:00:00,Termination",
      "GA,202500001234,2025-02-03 14:00:00,,amendment,,,,,,,,,,202500010002,2025-05-02 10:00:00,Amendment - Collateral",
    ];
    const later = await importText("later.csv", [header, ...rows].join("\n"));
    expect(later.rejects).toEqual([]);
    expect(later.summary).toMatchObject({ amendments: 2, updated: 1 });
    const ga = firstOf((await lookup("202500001234", "GA")).ucc_liens);
    expect(ga.estimated_lien_status).toBe("Terminated");
    expect(ga.amendments.map((a) => a.amendment_financing_number)).toEqual([
      "202500009999",
      "202500010001",
      "202500010002",
    ]);
  });
});

describe("importing feeds written in Latin-1 (windows-1252) rather than UTF-8", () => {
  const name = "ZÉPHYR QUÍMICA LLC";
  /** `text` (characters under U+0100) one byte a character, as Latin-1 writes it: É is 0xC9, not UTF-8. */
  const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
  const found = async (state: string) =>
    (await getJson(fresh(`/debtors/search?name=${encodeURIComponent(name)}&state=${state}`))).ucc_liens.map(
      (l) => l.initial_financing_number,
    );
  const warning = (line: number) =>
    `line ${line} is not UTF-8: read as Windows-1252 (Latin-1), one character a byte; check a name of such a line reads right`;

  beforeAll(emptyDatabase);

  it("reads a CSV line that is not UTF-8 as windows-1252, says so on its filing, and finds the debtor by name", async () => {
    const csv = [
      "filing_state,filing_number,filing_date,role,party_type,name,city",
      `TX,L1-CSV,2024-01-05,debtor,Organization,${name},Austin`,
      "TX,L1-CSV,,secured,,RV BANK,Austin",
      // A UTF-8 line in the same file stays UTF-8.
      "TX,L2-CSV,2024-01-05,debtor,Organization,RENÉE SARL,Austin",
      "TX,L2-CSV,,secured,,RV BANK,Austin",
      "",
    ];
    const bytes = new Uint8Array([
      ...latin1(csv.slice(0, 3).join("\n")),
      0x0a,
      ...new TextEncoder().encode(csv.slice(3).join("\n")),
    ]);
    const result = await importText("latin.csv", bytes);
    expect(result.summary).toMatchObject({ read: 2, inserted: 2, rejected: 0 });
    // Both lack addresses; only the Latin-1 one is told its line was read as windows-1252.
    expect(result.warnings.map((w) => [w.filing, w.reason.endsWith(`; ${warning(2)}`)])).toEqual([
      ["TX L1-CSV", true],
      ["TX L2-CSV", false],
    ]);
    expect(firstOf((await lookup("L1-CSV", "TX")).ucc_liens).involved_parties.debtor_parties[0]?.name).toBe(name);
    expect(firstOf((await lookup("L2-CSV", "TX")).ucc_liens).involved_parties.debtor_parties[0]?.name).toBe(
      "RENÉE SARL",
    );
    expect(await found("TX")).toEqual(["L1-CSV"]);
  });

  it("reads an NDJSON line that is not UTF-8 as windows-1252, says so on its filing, and finds the debtor by name", async () => {
    const line = JSON.stringify({
      initial_financing_number: "L1-NDJSON",
      initial_financing_date: "2024-01-05",
      jurisdiction_state: "NM",
      involved_parties: {
        debtor_parties: [{ name, type: "Organization", address: { city: "Santa Fe", state: "NM", zip_code: "87501" } }],
        secured_parties: [{ name: "RV BANK" }],
      },
    });
    const result = await importText("latin.ndjson", latin1(`\n${line}\n`));
    expect(result.summary).toMatchObject({ read: 1, inserted: 1, warned: 1 });
    expect(result.warnings[0]?.reason).toContain(warning(2));
    expect(firstOf((await lookup("L1-NDJSON", "NM")).ucc_liens).involved_parties.debtor_parties[0]?.name).toBe(name);
    expect(await found("NM")).toEqual(["L1-NDJSON"]);
  });

  it("reads an XML file that declares no encoding and is not UTF-8 as windows-1252, line by line, saying so on each record", async () => {
    const detail = (
      number: string,
      debtor: string,
    ) => `<FileDetail><TransType Type="Initial"/><FileNumber>${number}</FileNumber>
<FileDate>20240105 1030</FileDate><FilingOffice>CO</FilingOffice>
<Debtors><DebtorName><Names>
<OrganizationName>${debtor}</OrganizationName>
<MailAddress>1 MAIN ST</MailAddress><City>DENVER</City><State>CO</State><PostalCode>80202</PostalCode>
</Names></DebtorName></Debtors><Secured><Names><OrganizationName>RV BANK</OrganizationName>
<MailAddress>2 MAIN ST</MailAddress><City>DENVER</City><State>CO</State><PostalCode>80202</PostalCode></Names></Secured>
</FileDetail>
`;
    const xml = `<Document><Record><Results>\n${detail("L1-XML", name)}${detail("L2-XML", "PLAIN LLC")}</Results></Record></Document>\n`;
    const result = await importText("latin.xml", latin1(xml));
    expect(result.summary).toEqual(counts({ read: 2, inserted: 2, warned: 1 }));
    expect(result.warnings.map((w) => [w.filing, w.reason])).toEqual([["CO L1-XML", warning(5)]]);
    expect(firstOf((await lookup("L1-XML", "CO")).ucc_liens).involved_parties.debtor_parties[0]?.name).toBe(name);
    expect(await found("CO")).toEqual(["L1-XML"]);
  });

  it("refuses a CSV or NDJSON file in UTF-16, by its byte-order mark, before reading a line", async () => {
    const utf16 = (text: string) =>
      new Uint8Array([0xff, 0xfe, ...Array.from(text).flatMap((c) => [c.charCodeAt(0), 0])]);
    for (const file of ["u.csv", "u.ndjson"]) {
      await expect(importText(file, utf16("filing_state,filing_number\n"))).rejects.toThrow(
        "the file starts with a UTF-16 byte-order mark: it is read as UTF-8 (a line that is not, as Windows-1252); save it as UTF-8",
      );
    }
  });
});

describe("exporting and importing again", () => {
  it("keeps a secured party's own type, which the API lists as its role", async () => {
    await emptyDatabase();
    const line = {
      initial_financing_number: "IND-LENDER-1",
      initial_financing_date: "2025-06-02T08:00:00Z",
      jurisdiction_state: "OH",
      involved_parties: {
        debtor_parties: [{ name: "Buckeye Tools LLC", type: "Organization", address: { city: "Columbus" } }],
        secured_parties: [
          { name: "Jane Q. Lender", type: "Individual", address: { city: "Dayton" } },
          { name: "Ohio Valley Bank", type: "Secured Party", address: { city: "Gallipolis" } },
        ],
      },
    };
    expect((await importText("lenders.ndjson", JSON.stringify(line))).summary.inserted).toBe(1);
    const served = firstOf((await lookup("IND-LENDER-1", "OH")).ucc_liens).involved_parties.secured_parties;
    expect(served.map((p: { type: string }) => p.type)).toEqual(["Secured Party", "Secured Party"]);
    const exported = [];
    for await (const item of exportFilings(dbOf("OH"), "OH", 50)) exported.push(feedLine(item, today()));
    expect(firstOf(exported).involved_parties.secured_parties.map((p) => p.type)).toEqual([
      "Individual",
      "Organization",
    ]);
  });

  it("reproduces the same API responses in an empty database", async () => {
    await emptyDatabase();
    const generated = [...generateFilings({ filings: 400, seed: 31, now: Date.now() })];
    const feed = generated.map((r) => JSON.stringify(lienLine(r, today()))).join("\n");
    expect((await importText("generated.ndjson", feed)).summary.inserted).toBe(generated.length);

    const states = [...new Set(generated.map((r) => r.state))];
    const byState = (s: string) => generated.filter((r) => r.state === s).length;
    const busiest = [...states].sort((a, b) => byState(b) - byState(a)).slice(0, 3);
    const sample = generated.filter((_, i) => i % 40 === 0);
    const q = encodeURIComponent;
    const paths = [
      ...sample.map((r) => `/filings?initial_financing_number=${q(r.number)}&state=${r.state}`),
      ...sample.map((r) => `/debtors/search?name=${q(r.debtors[0]!.name)}&state=${r.state}`),
      ...sample.map((r) => `/debtors/addresses?name=${q(r.debtors[0]!.name)}`),
      ...sample.map((r) => `/debtors/associated/?name=${q(r.debtors[0]!.name)}&state=${r.state}`),
      ...sample.map((r) => `/debtors/search-similar?name=${q(r.debtors[0]!.name)}`),
      ...sample.map((r) => `/filings/recent-by-postal-code?postal_code=${r.debtors[0]!.address.zipCode}`),
      ...busiest.flatMap((s) => [
        `/filings/recent-by-state?state=${s}`,
        `/filings/recent-by-state?state=${s}&page=2`,
        `/filings/recently-terminated?state=${s}`,
        `/secureds/recent-by-secured-party?name=wells%20fargo&state=${s}`,
      ]),
    ];
    const before = await snapshot(paths);
    for (const path of paths.filter((p) => p.startsWith("/filings?"))) {
      expect(before[path]).toHaveProperty("ucc_liens.length", 1);
    }

    const exported: string[] = [];
    for (const state of states) {
      for await (const item of exportFilings(dbOf(state), state, 50))
        exported.push(JSON.stringify(feedLine(item, today())));
    }
    expect(exported).toHaveLength(generated.length);
    await emptyDatabase();
    expect((await getJson(fresh(`/filings/recent-by-state?state=${busiest[0]}`))).ucc_liens).toEqual([]);
    const reloaded = await importText("exported.ndjson", exported.join("\n"));
    expect(reloaded.summary).toMatchObject({ read: generated.length, inserted: generated.length, rejected: 0 });
    expect(await snapshot(paths)).toEqual(before);
  }, 120_000);
});
