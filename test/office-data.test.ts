/**
 * Real filing-office data in all three feed formats: foreign, partial and
 * messy addresses, long and accented names, tax and judgment liens with the
 * office's lapse dates, office-specific amendment kinds, and (XML)
 * amendments apart from their filings. Every usable filing loads, and the
 * public lookup serves what the office recorded.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Body } from "./bodies.ts";
import { counts, emptyDatabase, fresh, importText, readCount } from "./feeds.ts";
import officeCsv from "./fixtures/office.csv?raw";
import officeNdjson from "./fixtures/office.ndjson?raw";
import officeXml from "./fixtures/office.xml?raw";
import officeLaterXml from "./fixtures/office-later.xml?raw";
import { allD1, get, getJson, registerKeys, testAddress } from "./helpers.ts";

/** The public lookup's filing (GET /filings), or undefined. */
async function lookupOrNone(number: string, state: string) {
  const res = await get(fresh(`/filings?initial_financing_number=${encodeURIComponent(number)}&state=${state}`), null, {
    headers: { "cf-connecting-ip": testAddress(readCount()) },
  });
  expect(res.status).toBe(200);
  const body = await res.json<Body<"/filings">>();
  return body.ucc_liens[0];
}

/** The public lookup's filing, which the test expects to be there. */
async function lookup(number: string, state: string) {
  const filing = await lookupOrNone(number, state);
  if (!filing) throw new Error(`no filing ${state} ${number}`);
  return filing;
}

const address = (parts: Record<string, string | null>) => expect.objectContaining(parts);

beforeAll(registerKeys);

describe("an NDJSON feed of real office shapes", () => {
  let result: Awaited<ReturnType<typeof importText>>;

  beforeAll(async () => {
    await emptyDatabase();
    result = await importText("office.ndjson", officeNdjson);
  });

  it("loads every filing, counting those with repairs or gaps as loaded with warnings", () => {
    expect(result.rejects).toEqual([]);
    expect(result.summary).toEqual(counts({ read: 5, inserted: 5, warned: 4 }));
    expect(result.warnings.map((w) => [w.line, w.filing])).toEqual([
      [1, "CA 137363375543"],
      [2, "CO 20252001234"],
      [4, "TX 25-0077112233"],
      [5, "OR OR-2025-778899"],
    ]);
    expect(result.warnings[1]!.reason).toContain(
      'involved_parties.debtor_parties[0].address.city: "GRAND JCT CO 81504" held the state and ZIP: split into city, state and ZIP',
    );
    expect(result.warnings[3]!.reason).toBe("involved_parties.secured_parties: none named: filing kept");
  });

  it("serves a state tax lien with the office's lapse date, not a computed five years", async () => {
    const lien = await lookup("137363375543", "CA");
    expect(lien).toMatchObject({
      initial_financing_date: "2013-05-22T17:00:00Z",
      estimated_lien_lapse_date: "2023-05-22",
      estimated_lien_status: "Lapsed",
      filing_kind: "state_tax_lien",
      lapse_date_source: "office",
      filing_office: "California Secretary of State",
      collateral: null,
    });
    expect(lien.involved_parties.secured_parties[0]?.address).toEqual(
      address({ zip_code: "94280-0001", country: "US", state: "CA" }),
    );
  });

  it("keeps foreign, partial and messy addresses as recorded, in both envelopes", async () => {
    const filing = await lookup("20252001234", "CO");
    const [aviation, olafur] = filing.involved_parties.debtor_parties;
    expect(aviation?.address).toEqual({
      street1: "2828 Walker Field Dr",
      city: "GRAND JCT",
      state: "CO",
      zip_code: "81504",
      country: "US",
      maps_url: `https://www.google.com/maps/search/?api=1&query=${encodeURIComponent("2828 Walker Field Dr, GRAND JCT, CO 81504")}`,
    });
    expect(olafur).toMatchObject({ name: "Ólafur Þórðarson", type: "Individual" });
    expect(olafur?.address).toEqual(
      address({ street1: null, city: "Grand Junction", state: "CO", zip_code: "80137-1234", country: null }),
    );
    const [toronto, tokyo] = filing.involved_parties.secured_parties;
    expect(toronto?.address).toEqual({
      street1: "200 Bay St",
      city: "Toronto",
      state: "ON",
      zip_code: "M5X 1A9",
      country: "CA",
      maps_url: `https://www.google.com/maps/search/?api=1&query=${encodeURIComponent("200 Bay St, Toronto, ON M5X 1A9, CA")}`,
    });
    expect(tokyo?.address).toEqual(
      address({
        street1: "1-5-1 Marunouchi, Chiyoda-ku",
        city: "Tokyo",
        state: null,
        zip_code: "100-6525",
        country: "JP",
      }),
    );
    expect(filing.collateral).toBe(
      "One (1) Bombardier CL-600-2B16 aircraft,\nserial number 5701, with all engines and records.",
    );
    // Envelope A (known addresses) serves the missing street as null too.
    const known = await getJson(fresh(`/debtors/addresses?name=${encodeURIComponent("Ólafur Þórðarson")}`));
    expect(known.addresses).toEqual([
      { street1: null, street2: null, city: "Grand Junction", state: "CO", zip_code: "80137-1234" },
    ]);
  });

  it("keeps office amendment kinds, and a revoked termination leaves the filing active", async () => {
    const filing = await lookup("20252001234", "CO");
    expect(filing.estimated_lien_status).toBe("Active");
    expect(filing.lapse_date_source).toBe("estimated");
    expect(filing.amendments.map((a) => [a.amendment_financing_type_description, a.amendment_kind])).toEqual([
      ["Termination", "termination"],
      ["Termination Revoked", "reinstatement"],
      ["Master Amendment", "party_change"],
      ["Office Correction - Debtor Address", "other"],
    ]);
  });

  it("keeps a long trustee name whole and finds it by that name; keeps accented names", async () => {
    const lien = await lookup("JL-2024-000045", "IL");
    const [trust, person] = lien.involved_parties.debtor_parties;
    expect(trust?.name).toHaveLength(294);
    expect(trust?.name).toMatch(/^CHICAGO TITLE LAND TRUST COMPANY, not personally, .* in such capacity$/);
    expect(person?.name).toBe("Zoë Saldaña-Núñez");
    expect(lien).toMatchObject({
      filing_kind: "judgment_lien",
      estimated_lien_lapse_date: "2031-02-10",
      lapse_date_source: "office",
      collateral: "All personal property of the judgment debtor,\nincluding accounts and equipment.",
    });
    const found = await getJson(fresh(`/debtors/search?name=${encodeURIComponent(trust?.name ?? "")}&state=IL`));
    expect(found.ucc_liens.map((l) => l.initial_financing_number)).toEqual(["JL-2024-000045"]);
  });

  it("keeps a federal tax lien whose debtor has no ZIP, and a filing with no secured party", async () => {
    const irs = await lookup("25-0077112233", "TX");
    expect(irs).toMatchObject({
      filing_kind: "federal_tax_lien",
      estimated_lien_lapse_date: "2035-08-14",
      lapse_date_source: "office",
    });
    expect(irs.involved_parties.debtor_parties[0]?.address).toEqual(
      address({ street1: "4410 Old Spanish Trl", city: "Houston", state: "TX", zip_code: null }),
    );
    const lonely = await lookup("OR-2025-778899", "OR");
    expect(lonely.involved_parties.secured_parties).toEqual([]);
    expect(lonely.estimated_lien_lapse_date).toBe("2030-09-02");
  });
});

describe("a CSV feed after it", () => {
  let result: Awaited<ReturnType<typeof importText>>;

  beforeAll(async () => {
    result = await importText("office.csv", officeCsv);
  });

  it("loads the filing and applies an amendment row to a filing loaded from another file", async () => {
    expect(result.rejects).toEqual([]);
    expect(result.summary).toEqual(counts({ read: 2, inserted: 1, updated: 1, amendments: 1, warned: 1 }));
    const ca = await lookup("137363375543", "CA");
    expect(ca).toMatchObject({
      estimated_lien_lapse_date: "2028-05-22",
      lapse_date_source: "office",
      estimated_lien_status: "Active",
    });
    expect(ca.amendments).toEqual([
      {
        amendment_financing_number: "137363375544",
        amendment_financing_date: "2018-05-01T00:00:00Z",
        amendment_financing_type_description: "Continuation",
        amendment_kind: "continuation",
        amendment_lapse_date: "2028-05-22",
        amendment_collateral: null,
      },
    ]);
  });

  it("serves the lien's kind, lapse date, collateral and foreign lender as the rows said", async () => {
    const wa = await lookup("2025-114-5566-7", "WA");
    expect(wa).toMatchObject({
      initial_financing_date: "2025-09-30T11:00:00Z",
      filing_kind: "state_tax_lien",
      estimated_lien_lapse_date: "2035-09-30",
      lapse_date_source: "office",
      filing_office: "Washington Department of Licensing",
      collateral: "All property and rights to property\nof the taxpayer.",
    });
    expect(wa.involved_parties.debtor_parties[0]?.address).toEqual(address({ zip_code: "98101-1234", country: "US" }));
    expect(wa.involved_parties.secured_parties[1]?.address).toEqual(
      address({ city: "Vancouver", state: "BC", zip_code: "V7X 1L7", country: "CA" }),
    );
    expect(wa.amendments.map((a) => a.amendment_kind)).toEqual(["other"]);
  });
});

describe("an IACA XML bulk file", () => {
  let result: Awaited<ReturnType<typeof importText>>;
  const numbers = ["U250088812345", "255112233445", "U240077700001"];
  const snapshot = async () => Promise.all(numbers.map((n) => lookupOrNone(n, "CA")));

  beforeAll(async () => {
    await emptyDatabase();
    result = await importText("office.xml", officeXml);
  });

  it("loads its filings and amendments, and keeps one whose filing is not loaded yet", () => {
    expect(result.rejects).toEqual([]);
    expect(result.summary).toEqual(counts({ read: 5, inserted: 2, amendments: 3, pending: 1, warned: 1 }));
    expect(result.warnings.at(-1)).toEqual({
      file: "office.xml",
      line: 87,
      end_line: 96,
      filing: "CA U240077700001",
      amendment: "U250077700002",
      reason: "its filing is not loaded yet: the amendment is kept and applied when the filing arrives",
    });
  });

  it("composes individuals' names as LAST, FIRST MIDDLE SUFFIX and keeps foreign addresses", async () => {
    const filing = await lookup("U250088812345", "CA");
    expect(filing).toMatchObject({
      initial_financing_date: "2025-03-05T14:20:00Z",
      estimated_lien_lapse_date: "2030-03-05",
      lapse_date_source: "office",
      filing_kind: "standard",
      filing_office: "CA",
      collateral: "Two (2) Zeiss lithography lenses, serial numbers 4411 and 4412,\nand all accessions thereto.",
    });
    const debtors = filing.involved_parties.debtor_parties;
    expect(debtors.map((d) => [d.name, d.type])).toEqual([
      ["GARCÍA MÁRQUEZ, GABRIEL JOSÉ JR", "Individual"],
      ["Ångström Optics AB", "Organization"],
      // Added by the amendment that came before the filing in the file.
      ["GARCIA MARQUEZ HOLDINGS, LLC", "Organization"],
    ]);
    expect(debtors[0]?.address).toEqual(address({ zip_code: "90012-1234", country: "US" }));
    expect(debtors[1]?.address).toEqual(
      address({ street1: "Drottninggatan 1", city: "Stockholm", state: null, zip_code: "111 22", country: "SE" }),
    );
    expect(filing.involved_parties.secured_parties[0]?.address).toEqual(
      address({ street1: "Frölingstraße 15-31", state: "Hessen", zip_code: "61352", country: "DE" }),
    );
    expect(filing.amendments).toEqual([
      {
        amendment_financing_number: "U250088812399",
        amendment_financing_date: "2025-06-01T09:00:00Z",
        amendment_financing_type_description: "AmendmentParties - DebtorAdd",
        amendment_kind: "party_change",
        amendment_lapse_date: null,
        amendment_collateral: null,
      },
    ]);
  });

  it("reads AltFilingType StateLien as a state tax lien with the office's lapse date", async () => {
    const lien = await lookup("255112233445", "CA");
    expect(lien).toMatchObject({
      filing_kind: "state_tax_lien",
      estimated_lien_lapse_date: "2035-04-15",
      collateral: null,
    });
    expect(lien.involved_parties.debtor_parties[0]?.name).toBe("TRUE MASSAGE & WELLNESS");
    expect(lien.amendments.map((a) => [a.amendment_financing_type_description, a.amendment_kind])).toEqual([
      ["OfficerStatement", "other"],
    ]);
    expect(await lookupOrNone("U240077700001", "CA")).toBeUndefined();
  });

  it("changes nothing when imported again", async () => {
    const before = await snapshot();
    const again = await importText("office.xml", officeXml);
    expect(again.summary).toEqual(counts({ read: 5, unchanged: 2, amendments: 3, pending: 1, warned: 1 }));
    expect(await snapshot()).toEqual(before);
  });

  it("applies the waiting amendment when its filing arrives in a later file, once", async () => {
    const later = await importText("office-later.xml", officeLaterXml);
    expect(later.summary).toEqual(counts({ read: 1, inserted: 1 }));
    const filing = await lookup("U240077700001", "CA");
    expect(filing.estimated_lien_status).toBe("Terminated");
    expect(filing.amendments).toMatchObject([
      { amendment_financing_number: "U250077700002", amendment_kind: "termination" },
    ]);
    for (const d1 of allD1) {
      const pending = await d1.prepare("select count(*) as n from pending_amendments").first<{ n: number }>();
      expect(pending?.n).toBe(0);
    }
    const before = await snapshot();
    const again = await importText("office.xml", officeXml);
    expect(again.summary).toEqual(counts({ read: 5, unchanged: 3, amendments: 3, warned: 1 }));
    expect(await snapshot()).toEqual(before);
  });

  it("reads a file in the encoding its declaration names (windows-1252)", async () => {
    const text = officeLaterXml
      .replace('encoding="UTF-8"', 'encoding="windows-1252"')
      .replaceAll("U240077700001", "W1252")
      .replace("PACIFIC DRAYAGE PARTNERS, L.P.", "MÜLLER &amp; FILS SÀRL");
    const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
    expect((await importText("latin.xml", bytes)).summary.inserted).toBe(1);
    const filing = await lookup("W1252", "CA");
    expect(filing.involved_parties.debtor_parties[0]?.name).toBe("MÜLLER & FILS SÀRL");
  });

  it("reads a UTF-16 file by its byte-order mark, or by its first bytes without one, declared or not", async () => {
    /** `text` as UTF-16 in either byte order, with or without a byte-order mark. */
    const utf16 = (text: string, littleEndian: boolean, mark: boolean) => {
      const units = `${mark ? "\uFEFF" : ""}${text}`;
      const view = new DataView(new ArrayBuffer(units.length * 2));
      for (let i = 0; i < units.length; i++) view.setUint16(i * 2, units.charCodeAt(i), littleEndian);
      return new Uint8Array(view.buffer);
    };
    const files = [
      ["U16LE", true, true, 'encoding="UTF-16"'],
      ["U16NODECL", true, true, null],
      ["U16BE", false, true, 'encoding="UTF-16"'],
      ["U16NOMARK", true, false, 'encoding="UTF-16"'],
      ["U16BENOMARK", false, false, 'encoding="UTF-16BE"'],
    ] as const;
    for (const [number, littleEndian, mark, declared] of files) {
      const text = officeLaterXml
        .replace(/<\?xml[^>]*\?>\n/, declared ? `<?xml version="1.0" ${declared}?>\n` : "")
        .replaceAll("U240077700001", number)
        .replace("PACIFIC DRAYAGE PARTNERS, L.P.", `ZÉPHYR QUÍMICA ${number} LLC`);
      const { summary } = await importText(`${number}.xml`, utf16(text, littleEndian, mark));
      expect(summary, number).toEqual(counts({ read: 1, inserted: 1 }));
      const filing = await lookup(number, "CA");
      expect(filing.involved_parties.debtor_parties[0]?.name).toBe(`ZÉPHYR QUÍMICA ${number} LLC`);
    }
  });

  it("stops at a truncated file, naming the line and byte, and keeps the filings before it", async () => {
    await emptyDatabase();
    const cut = officeXml.slice(0, officeXml.indexOf("<OrganizationName>FRANCHISE TAX BOARD"));
    const bytes = new TextEncoder().encode(cut).length.toLocaleString("en-US");
    await expect(importText("cut.xml", cut)).rejects.toThrow(
      `the file ends inside the <FileDetail> begun at line 97 (line 118, column 13, byte ${bytes}): it looks truncated; the records before it were read`,
    );
    expect((await lookup("U250088812345", "CA")).involved_parties.debtor_parties).toHaveLength(3);
    expect(await lookupOrNone("255112233445", "CA")).toBeUndefined();
  });

  it("stops at malformed XML, naming where", async () => {
    const broken = officeLaterXml.replace("</City>", "</Town>");
    await expect(importText("broken.xml", broken)).rejects.toThrow(
      /^not well-formed XML at line 18, column 38, byte 654: Unexpected close tag/,
    );
  });
});
