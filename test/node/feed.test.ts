/**
 * Feed parsing without a database: normalization rules, the lien-line
 * schema, and CSV rows (quoting, grouping, and how bad rows are contained).
 */
import { describe, expect, it } from "vitest";
import { generateFilings } from "../../seed/generate.ts";
import { toRows } from "../../src/db/records.ts";
import { COUNTRIES, countryCode } from "../../src/domain/countries.ts";
import { normalizeAddress, type RawAddress } from "../../src/feed/address.ts";
import { csvFilings, csvRecords, FeedFileError } from "../../src/feed/csv.ts";
import { lienLine } from "../../src/feed/export.ts";
import { readLines } from "../../src/feed/lines.ts";
import {
  amendmentKind,
  canonicalIndustry,
  filingKindOf,
  inferFilingKind,
  normalizeName,
  normalizeTimestamp,
} from "../../src/feed/normalize.ts";
import { type FeedItem, feedFormat, readFeed, reassembled } from "../../src/feed/read.ts";
import { describeIssues, describeWarnings, lienSchema } from "../../src/feed/schema.ts";

const stream = (text: string | Uint8Array) => new Response(text).body!;

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const NOW = new Date("2026-06-01T00:00:00Z");
const schema = lienSchema({ now: NOW });

/** A valid feed line, with `over` merged in. */
function line(over: Record<string, unknown> = {}) {
  const address = { street1: "1 Main St", city: "Springfield", state: "IL", zip_code: "62701", country: "US" };
  return {
    initial_financing_number: "2025-000001",
    initial_financing_date: "2025-01-15T12:00:00Z",
    jurisdiction_state: "IL",
    involved_parties: {
      debtor_parties: [
        { name: "Lincoln Hardware LLC", type: "Organization", category: "Retail & E-commerce", address },
      ],
      secured_parties: [{ name: "Prairie State Bank", type: "Secured Party", category: "Bank", address }],
    },
    amendments: [],
    ...over,
  };
}

function problem(value: unknown): string {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error("expected a problem, the line was accepted");
  return describeIssues(parsed.error);
}

describe("timestamp normalization", () => {
  it.each([
    ["2025-09-08T14:03:11Z", "2025-09-08T14:03:11Z"],
    ["2025-09-08T14:03:11", "2025-09-08T14:03:11Z"],
    ["2025-09-08 14:03:11", "2025-09-08T14:03:11Z"],
    ["2025-09-08T14:03:11.987Z", "2025-09-08T14:03:11Z"],
    ["2025-09-08T16:03:11+02:00", "2025-09-08T14:03:11Z"],
    ["2025-09-08T09:03:11-0500", "2025-09-08T14:03:11Z"],
    ["2025-09-08T14:03", "2025-09-08T14:03:00Z"],
    ["2025-09-08", "2025-09-08T00:00:00Z"],
    [" 2024-02-29 23:59:59 ", "2024-02-29T23:59:59Z"],
  ])("reads %j as %s", (input, expected) => {
    expect(normalizeTimestamp(input)).toBe(expected);
  });

  it.each([
    "2025-02-29T10:00:00Z",
    "2025-13-01",
    "2025-09-08T24:00:00",
    "2025-09-08T12:60:00",
    "09/08/2025",
    "",
    "2025-09-08T14:03:11+25:00",
  ])("refuses %j", (input) => {
    expect(normalizeTimestamp(input)).toBeNull();
  });
});

describe("name normalization", () => {
  it.each([
    ["  Acme   Widgets  ", "Acme Widgets"],
    ["Acme , Inc .", "Acme, Inc."],
    ["Acme,Inc", "Acme, Inc"],
    ["WELLS FARGO BANK,N.A.", "WELLS FARGO BANK, N.A."],
    ["Smith ( Holdings ) LLC", "Smith (Holdings) LLC"],
    ["Maria\tL.\nSanchez", "Maria L. Sanchez"],
    ["1,000 Oaks Nursery", "1,000 Oaks Nursery"],
    ["H&R Block", "H&R Block"],
  ])("tidies %j to %j", (input, expected) => {
    expect(normalizeName(input)).toBe(expected);
    expect(normalizeName(expected)).toBe(expected);
  });

  it("spells the fifteen industries canonically and keeps other labels", () => {
    expect(canonicalIndustry("food & beverage")).toBe("Food & Beverage");
    expect(canonicalIndustry("MANUFACTURING")).toBe("Manufacturing");
    expect(canonicalIndustry("Aerospace")).toBe("Aerospace");
  });
});

describe("amendment kinds from their descriptions", () => {
  it.each([
    ["Termination", "termination"],
    ["UCC3 Termination Statement", "termination"],
    ["Continuation", "continuation"],
    ["Assignment", "assignment"],
    ["Partial Assignment", "assignment"],
    ["Amendment - Collateral", "collateral_change"],
    ["Amendment - Party Information", "party_change"],
    ["Amendment", "party_change"],
    ["Debtor Name Change", "party_change"],
    ["Master Amendment", "party_change"],
    ["AmendmentParties - DebtorAdd", "party_change"],
    ["AmendmentCollateral - CollateralRestate", "collateral_change"],
    ["TerminationSecuredParty", "termination"],
    ["Lien Release", "termination"],
    ["Termination Revoked", "reinstatement"],
    ["Erroneous Termination", "reinstatement"],
    ["Reinstatement", "reinstatement"],
    ["Partial Termination", "other"],
    ["Partial Release", "other"],
    ["Correction", "other"],
    ["Office Correction", "other"],
    ["OfficerStatement", "other"],
    ["Lapse notice", "other"],
    ["Refiling", "continuation"],
    ["Notation of bankruptcy", "other"],
    ["Certificate of Release of Federal Tax Lien", "termination"],
    ["Revocation of Certificate of Release", "reinstatement"],
    ["Release Revoked", "reinstatement"],
  ])("reads %j as %s", (description, kind) => {
    expect(amendmentKind(description)).toBe(kind);
  });
});

describe("filing kinds from lapse dates", () => {
  const filing = (type = "Organization") => ({ filedAt: "2020-03-15T12:00:00Z", debtors: [{ type }], amendments: [] });

  it("reads no lapse date as standard, null as a transmitting utility", () => {
    expect(inferFilingKind(undefined, filing())).toBe("standard");
    expect(inferFilingKind(null, filing())).toBe("transmitting_utility");
  });

  it("reads a thirty-year lapse as a manufactured home for individuals, public finance otherwise", () => {
    expect(inferFilingKind("2050-03-15", filing("Individual"))).toBe("manufactured_home");
    expect(inferFilingKind("2050-03-15", filing())).toBe("public_finance");
  });

  it("reads the UCC-1's own labels of a filing's kind", () => {
    expect(filingKindOf("Manufactured-Home Transaction")).toBe("manufactured_home");
    expect(filingKindOf("Public-Finance Transaction")).toBe("public_finance");
    expect(filingKindOf("A Debtor is a Transmitting Utility")).toBe("transmitting_utility");
  });

  it("takes the nearest kind for a lapse date computed differently", () => {
    expect(inferFilingKind("2025-03-16", filing())).toBe("standard");
    expect(inferFilingKind("2030-03-15", filing())).toBe("standard");
    expect(inferFilingKind("2049-12-31", filing())).toBe("public_finance");
  });
});

describe("the feed line schema", () => {
  it("turns every exported filing back into the rows it was loaded as", () => {
    const records = [...generateFilings({ filings: 600, seed: 3, now: NOW.getTime() })];
    for (const record of records) {
      expect(toRows(schema.parse(lienLine(record, "2026-06-01")).record, 1)).toEqual(toRows(record, 1));
    }
    expect(new Set(records.map((r) => r.kind)).size).toBe(7);
  });

  it("upper-cases state codes and keeps ZIP+4 as filed", () => {
    const address = { street1: "1 Main St", city: "Chicago", state: "il", zip_code: " 60601-1234 ", country: "" };
    const { record } = schema.parse(
      line({
        jurisdiction_state: " il ",
        involved_parties: {
          debtor_parties: [{ name: "Loop Deli", type: "organization", category: "Organization", address }],
          secured_parties: [{ name: "Lake Bank", address }],
        },
      }),
    );
    expect(record.state).toBe("IL");
    expect(record.debtors[0]).toEqual({
      name: "Loop Deli",
      type: "Organization",
      label: null,
      address: {
        street1: "1 Main St",
        street2: null,
        city: "Chicago",
        state: "IL",
        zipCode: "60601-1234",
        country: null,
      },
    });
    expect(record.securedParties[0]).toMatchObject({ type: "Organization", label: null });
  });

  it("names each problem by its field", () => {
    const bad = line({ jurisdiction_state: "ZZ", initial_financing_date: "yesterday" });
    expect(problem(bad)).toBe(
      'initial_financing_date: "yesterday" is not a timestamp: use YYYY-MM-DDThh:mm:ssZ, YYYY-MM-DDThh:mm:ss, YYYY-MM-DD hh:mm:ss or YYYYMMDD hhmm (UTC); jurisdiction_state: "ZZ" is not a US state or territory code',
    );
    expect(problem(line({ initial_financing_number: undefined }))).toBe("initial_financing_number: is required");
    expect(problem(line({ initial_financing_number: 12 }))).toBe(
      "initial_financing_number: must be a string, not number",
    );
  });

  it("keeps ZIP codes that are not five digits or ZIP+4, with a warning", () => {
    for (const zip of ["6060", "606011", "60601-12", "ABCDE"]) {
      const odd = line();
      const debtor = odd.involved_parties.debtor_parties[0]!;
      debtor.address = { ...debtor.address, zip_code: zip };
      const { record, warnings } = schema.parse(odd);
      expect(record.debtors[0]!.address.zipCode).toBe(zip);
      expect(warnings.map((w) => w.path.join("."))).toEqual(["involved_parties.debtor_parties.0.address.zip_code"]);
    }
  });

  it("refuses a filing dated in the future; keeps an amendment before its filing and the last of a repeated number", () => {
    expect(problem(line({ initial_financing_date: "2026-06-03T00:00:00Z" }))).toBe(
      "initial_financing_date: is in the future",
    );
    const amendment = (number: string, date: string, description = "Continuation") => ({
      amendment_financing_number: number,
      amendment_financing_date: date,
      amendment_financing_type_description: description,
    });
    const early = schema.parse(line({ amendments: [amendment("A-1", "2024-12-31T00:00:00Z")] }));
    expect(early.record.amendments).toHaveLength(1);
    expect(describeWarnings(early.warnings)).toBe(
      "amendments[0].amendment_financing_date: is before the initial financing date 2025-01-15T12:00:00Z: kept",
    );
    const twice = schema.parse(
      line({
        amendments: [amendment("A-1", "2025-02-01T00:00:00Z"), amendment("A-1", "2025-03-01T00:00:00Z", "Termination")],
      }),
    );
    expect(twice.record.amendments).toMatchObject([{ number: "A-1", kind: "termination" }]);
    expect(describeWarnings(twice.warnings)).toBe(
      'amendments[1].amendment_financing_number: "A-1" appears twice: the last kept',
    );
    const future = schema.parse(line({ amendments: [amendment("A-2", "2026-07-01T00:00:00Z")] }));
    expect(future.record.amendments).toEqual([]);
  });

  it("keeps a termination without a usable date, dated as its filing, and leaves out any other undated amendment", () => {
    const undated = (number: string, description: string, date?: string) => ({
      amendment_financing_number: number,
      ...(date === undefined ? {} : { amendment_financing_date: date }),
      amendment_financing_type_description: description,
    });
    const parsed = schema.parse(
      line({
        amendments: [undated("A-1", "Continuation"), undated("A-2", "Termination", "not a date")],
      }),
    );
    expect(parsed.record.amendments).toMatchObject([
      { number: "A-2", kind: "termination", filedAt: "2025-01-15T12:00:00Z" },
    ]);
    expect(describeWarnings(parsed.warnings)).toBe(
      "amendments[0].amendment_financing_date: is required: amendment left out; " +
        'amendments[1].amendment_financing_date: "not a date" is not a timestamp: use YYYY-MM-DDThh:mm:ssZ, YYYY-MM-DDThh:mm:ss, YYYY-MM-DD hh:mm:ss or YYYYMMDD hhmm (UTC): termination kept, dated by its filing (2025-01-15T12:00:00Z)',
    );
  });

  it("keeps a filing with more than 200 debtors or secured parties, its first 200 of each, and says so", () => {
    const crowded = line();
    const debtor = crowded.involved_parties.debtor_parties[0]!;
    crowded.involved_parties.debtor_parties = Array.from({ length: 205 }, (_, i) => ({
      ...debtor,
      name: `Member ${i + 1} LLC`,
    }));
    const { record, warnings } = schema.parse(crowded);
    expect(record.debtors).toHaveLength(200);
    expect(record.debtors.at(-1)?.name).toBe("Member 200 LLC");
    expect(describeWarnings(warnings)).toBe(
      "involved_parties.debtor_parties: 205 debtor parties, more than 200: the first 200 kept",
    );
  });

  it("cuts an over-long name or collateral before a character it would split, so the text stays whole", () => {
    const long = line({ collateral: `${"x".repeat(19_999)}\u{1F600} more` });
    const debtor = long.involved_parties.debtor_parties[0]!;
    long.involved_parties.debtor_parties = [{ ...debtor, name: `${"A".repeat(999)}\u{1F600} TRUST` }];
    const { record } = schema.parse(long);
    const name = record.debtors[0]?.name ?? "";
    expect(name).toBe("A".repeat(999));
    expect(record.collateral).toBe("x".repeat(19_999));
    // No lone half of a pair: both encode to UTF-8 and back unchanged.
    for (const text of [name, record.collateral ?? ""]) {
      expect(new TextDecoder().decode(new TextEncoder().encode(text))).toBe(text);
    }
  });

  it("keeps the newest 500 amendments of a filing with more, so a late termination still ends it", () => {
    const amendments = Array.from({ length: 501 }, (_, i) => ({
      amendment_financing_number: `AM-${i}`,
      amendment_financing_date: new Date(Date.UTC(2025, 1, 1, 0, i)).toISOString(),
      amendment_financing_type_description: i === 500 ? "Termination" : "Amendment",
    }));
    const { record, warnings } = schema.parse(line({ amendments }));
    expect(record.amendments).toHaveLength(500);
    expect(record.amendments[0]?.number).toBe("AM-1");
    expect(record.amendments.at(-1)).toMatchObject({ number: "AM-500", kind: "termination" });
    expect(describeWarnings(warnings)).toBe(
      "amendments: 501 amendments, more than 500: the newest 500 kept, the oldest 1 left out",
    );
  });

  it("rejects only what makes a filing unusable: no number, no date, no jurisdiction, no debtor with a name", () => {
    expect(problem(line({ initial_financing_number: "  " }))).toBe("initial_financing_number: must not be empty");
    expect(problem(line({ initial_financing_date: null }))).toBe("initial_financing_date: is required");
    expect(problem(line({ jurisdiction_state: "Ontario" }))).toBe(
      'jurisdiction_state: "Ontario" is not a US state or territory code',
    );
    const nameless = line();
    nameless.involved_parties.debtor_parties[0]!.name = " -- ";
    expect(problem(nameless)).toBe("involved_parties.debtor_parties: must name at least one debtor with a name");
    const noLender = line();
    noLender.involved_parties.secured_parties = [];
    expect(schema.parse(noLender).warnings).toEqual([
      { path: ["involved_parties", "secured_parties"], message: "none named: filing kept" },
    ]);
  });

  it("takes a jurisdiction-less record's state from the default, when one is given", () => {
    const withDefault = lienSchema({ now: NOW, defaultState: "co" });
    expect(withDefault.parse(line({ jurisdiction_state: "" })).record.state).toBe("CO");
    expect(withDefault.parse(line({ jurisdiction_state: "IL" })).record.state).toBe("IL");
  });

  it("stores the office's lapse date, unless the line says it was estimated", () => {
    expect(schema.parse(line({ estimated_lien_lapse_date: "2035-01-15" })).record.officeLapseDate).toBe("2035-01-15");
    expect(schema.parse(line({ estimated_lien_lapse_date: "20350115" })).record.officeLapseDate).toBe("2035-01-15");
    const estimated = line({ estimated_lien_lapse_date: "2030-01-15", lapse_date_source: "estimated" });
    expect(schema.parse(estimated).record.officeLapseDate).toBeNull();
    const bad = schema.parse(line({ estimated_lien_lapse_date: "soon" }));
    expect(bad.record.officeLapseDate).toBeNull();
    expect(describeWarnings(bad.warnings)).toBe(
      'estimated_lien_lapse_date: "soon" is not a date (YYYY-MM-DD or YYYYMMDD): ignored',
    );
  });

  it("ignores fields it does not know and recomputes derived ones", () => {
    const { record } = schema.parse(
      line({
        estimated_lien_status: "Lapsed",
        search_url: "https://example.invalid",
        vendor_id: 7,
        filing_kind: "standard",
      }),
    );
    expect(record.kind).toBe("standard");
    expect(Object.keys(record).sort()).toEqual([
      "amendments",
      "collateral",
      "debtors",
      "filedAt",
      "filingOffice",
      "kind",
      "number",
      "officeLapseDate",
      "securedParties",
      "state",
    ]);
  });
});

describe("addresses as offices record them", () => {
  const raw = (over: Partial<RawAddress> = {}): RawAddress => ({
    street1: "1 Main St",
    street2: null,
    city: "Springfield",
    state: "IL",
    zip_code: "62701",
    country: null,
    ...over,
  });
  const normalized = (over: Partial<RawAddress>) => {
    const notes: string[] = [];
    const address = normalizeAddress(raw(over), (field, message) => notes.push(`${field}: ${message}`));
    return { address, notes };
  };

  it.each([
    ["USA", "US"],
    ["U.S.", "US"],
    ["United States of America", "US"],
    ["CAN", "CA"],
    ["Canada", "CA"],
    ["JPN", "JP"],
    ["Deutschland", "DE"],
    ["Côte d'Ivoire", "CI"],
  ])("reads the country %j as %s", (country, code) => {
    expect(countryCode(country)).toBe(code);
  });

  it("knows every ISO 3166-1 country by its alpha-2 and alpha-3 codes", () => {
    expect(COUNTRIES).toHaveLength(249);
    for (const c of COUNTRIES) {
      expect(countryCode(c.alpha2)).toBe(c.alpha2);
      expect(countryCode(c.alpha3)).toBe(c.alpha2);
    }
  });

  it("repairs US ZIPs and a city holding the state and ZIP, noting each repair", () => {
    expect(normalized({ zip_code: "627011234" })).toEqual({
      address: expect.objectContaining({ zipCode: "62701-1234" }),
      notes: ['zip_code: "627011234" read as ZIP+4 62701-1234'],
    });
    expect(normalized({ city: "GRAND JCT CO 81504", state: null, zip_code: null }).address).toMatchObject({
      city: "GRAND JCT",
      state: "CO",
      zipCode: "81504",
    });
    expect(normalized({ city: "Grand Junction, co 81504-1234", state: null, zip_code: null }).address).toMatchObject({
      city: "Grand Junction",
      state: "CO",
      zipCode: "81504-1234",
    });
  });

  it("keeps foreign regions and postal codes as written, and notes only what a foreign address lacks", () => {
    expect(normalized({ city: "Toronto", state: "ON", zip_code: "M5X 1A9", country: "Canada" })).toEqual({
      address: expect.objectContaining({ state: "ON", zipCode: "M5X 1A9", country: "CA" }),
      notes: [],
    });
    expect(normalized({ city: "Tokyo", state: null, zip_code: null, country: "Japan" }).notes).toEqual([]);
    expect(normalized({ street1: null, city: null, state: null, zip_code: null }).notes).toEqual([
      "street1: not recorded",
      "city: not recorded",
      "state: not recorded",
      "zip_code: not recorded: not searchable by postal code",
    ]);
    expect(normalized({ country: "Narnia" }).notes).toEqual([
      'country: "Narnia" names no ISO 3166 country; kept as given',
    ]);
  });
});

describe("amendment lines", () => {
  const amendmentLine = {
    initial_financing_number: "2025-000001",
    jurisdiction_state: "il",
    amendment_financing_number: "2025-000009",
    amendment_financing_date: "20250301 0900",
    amendment_financing_type_description: "AmendmentParties - DebtorAdd",
    amendment_lapse_date: "20300115",
    involved_parties: {
      debtor_parties: [
        { name: "Lincoln Hardware Holdings LLC", type: "Organization", address: { city: "Springfield" } },
      ],
    },
  };

  it("reads a line with an amendment number at the top level as one amendment of a filing", async () => {
    const items = await all(readFeed("a.ndjson", stream(JSON.stringify(amendmentLine)), { now: NOW }));
    expect(items).toHaveLength(1);
    const [item] = items;
    if (!item || !("amendment" in item)) throw new Error("expected an amendment item");
    expect(item.amendment).toMatchObject({
      state: "IL",
      filingNumber: "2025-000001",
      amendment: {
        number: "2025-000009",
        filedAt: "2025-03-01T09:00:00Z",
        kind: "party_change",
        lapseDate: "2030-01-15",
      },
      debtors: [{ name: "Lincoln Hardware Holdings LLC" }],
    });
    expect(item.warning?.reason).toContain("involved_parties.debtor_parties[0].address.street1: not recorded");
  });

  it("rejects an amendment line without its own number or its filing's", async () => {
    const { amendment_financing_number: _, ...noNumber } = amendmentLine;
    const bad = JSON.stringify({ ...amendmentLine, initial_financing_number: "" });
    const items = await all(readFeed("a.ndjson", stream(`${bad}\n${JSON.stringify(noNumber)}`), { now: NOW }));
    expect(items.map((i) => ("reject" in i ? i.reject.reason : "loaded"))).toEqual([
      "initial_financing_number: must not be empty",
      // Without an amendment number it is read as a filing, which has no date.
      expect.stringContaining("initial_financing_date: is required"),
    ]);
  });
});

describe("reading lines", () => {
  it("splits LF and CRLF lines across chunk boundaries and multi-byte characters, each ending at its byte", async () => {
    const bytes = new TextEncoder().encode("\uFEFFfirst\r\nsecond ñandú\nthird");
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 3) controller.enqueue(bytes.slice(i, i + 3));
        controller.close();
      },
    });
    // Ends count the byte-order mark, the CR and the two-byte characters.
    expect(await all(readLines(chunks))).toEqual([
      { number: 1, text: "first", end: 10 },
      { number: 2, text: "second ñandú", end: 25 },
      { number: 3, text: "third", end: 30 },
    ]);
  });

  it("reads a line that is not UTF-8 in the fallback encoding asked for, byte for byte, and marks it", async () => {
    const utf8 = new TextEncoder().encode("RENÉE\r\n");
    const latin1 = Uint8Array.from([0x43, 0x41, 0x46, 0xc9, 0x0d, 0x0a]); // "CAFÉ" in Latin-1, CRLF
    const replacement = new TextEncoder().encode("A\uFFFDB"); // a replacement character written as UTF-8
    const bytes = new Uint8Array([...utf8, ...latin1, ...replacement]);
    const chunks = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 4) controller.enqueue(bytes.slice(i, i + 4));
          controller.close();
        },
      });
    expect(await all(readLines(chunks(), undefined, { fallback: "windows-1252" }))).toEqual([
      { number: 1, text: "RENÉE", end: 8 },
      { number: 2, text: "CAFÉ", end: 14, recoded: true },
      { number: 3, text: "A\uFFFDB", end: 19 },
    ]);
    // Without a fallback the byte is a replacement character.
    expect((await all(readLines(chunks())))[1]).toEqual({ number: 2, text: "CAF\uFFFD", end: 14 });
  });

  it("knows feed formats by extension", () => {
    expect(feedFormat("a/b/ca.NDJSON")).toBe("ndjson");
    expect(feedFormat("x.jsonl")).toBe("ndjson");
    expect(feedFormat("x.csv")).toBe("csv");
    expect(feedFormat("co-2025.XML")).toBe("xml");
    expect(feedFormat("x.json")).toBeNull();
  });
});

const HEADER =
  "filing_state,filing_number,filing_date,filing_kind,role,party_type,name,category,street1,street2,city,state,zip,country,amendment_number,amendment_date,amendment_description";
const debtorRow = (n: string, name = `Debtor ${n}`) =>
  `IL,${n},2025-01-15 12:00:00,,debtor,Organization,${name},,1 Main St,,Springfield,IL,62701,US,,,`;
const securedRow = (n: string) => `IL,${n},,,secured,,Prairie State Bank,Bank,2 Main St,,Springfield,IL,62701,US,,,`;

async function readCsv(text: string) {
  return all(readFeed("t.csv", stream(text), { now: NOW }));
}
const numbers = (items: FeedItem[]) => items.flatMap((i) => ("record" in i ? [i.record.number] : []));
const rejects = (items: FeedItem[]) => items.flatMap((i) => ("reject" in i ? [i.reject] : []));

describe("CSV records", () => {
  it("reads quoted fields holding commas, doubled quotes and line breaks", async () => {
    const text = 'a,b,c\r\n1,"x, y","say ""hi"""\n2,"two\nlines",z\n\n3,,\n';
    const records = await all(csvRecords(readLines(stream(text))));
    expect(records.map((r) => [r.line, r.endLine, "fields" in r ? r.fields : undefined])).toEqual([
      [1, 1, ["a", "b", "c"]],
      [2, 2, ["1", "x, y", 'say "hi"']],
      [3, 4, ["2", "two\nlines", "z"]],
      [6, 6, ["3", "", ""]],
    ]);
  });

  it("contains a malformed row to its own line", async () => {
    const text = 'a,b\n1,2\n"bad"x,3\n4,5\n6,"never closed\n7,8\n';
    const records = await all(csvRecords(readLines(stream(text))));
    expect(records.map((r) => [r.line, "fields" in r ? r.fields : r.error])).toEqual([
      [1, ["a", "b"]],
      [2, ["1", "2"]],
      [3, expect.stringMatching(/^not a valid CSV row: Invalid Closing Quote/)],
      [4, ["4", "5"]],
      [5, "not a valid CSV row: a quoted field is not closed within 2 lines"],
      [6, ["7", "8"]],
    ]);
  });
});

describe("CSV filings", () => {
  it("groups adjacent rows of a filing and names header columns in any spelling", async () => {
    const header =
      "Filing State,Initial Financing Number,Filing Date,Role,Type,Name,Industry,Street 1,City,State,Zip Code,Amendment Number,Amendment Date,Amendment Description";
    const text = [
      header,
      "il,A-1,2025-01-15 12:00:00,Debtor,Organization,Lincoln Hardware,retail & e-commerce,1 Main St,Springfield,IL,62701,,,",
      "IL,A-1,,Secured Party,,Prairie State Bank,Bank,2 Main St,Springfield,IL,62701,,,",
      "IL,A-1,,amendment,,,,,,,,A-1-C,2025-03-01T00:00:00Z,Amendment - Collateral",
      "IL,A-2,2025-01-16,debtor,Individual,Ann Lee,,3 Oak St,Peoria,IL,61602,,,",
      "IL,A-2,,secured,,Prairie State Bank,,2 Main St,Springfield,IL,62701,,,",
    ].join("\n");
    const items = await readCsv(text);
    expect(rejects(items)).toEqual([]);
    const [first, second] = items.map((i) => ("record" in i ? i.record : null));
    expect(first).toMatchObject({
      state: "IL",
      number: "A-1",
      filedAt: "2025-01-15T12:00:00Z",
      debtors: [{ name: "Lincoln Hardware", label: "Retail & E-commerce" }],
      securedParties: [{ name: "Prairie State Bank", label: "Bank" }],
      amendments: [{ number: "A-1-C", kind: "collateral_change" }],
    });
    expect(second).toMatchObject({ number: "A-2", filedAt: "2025-01-16T00:00:00Z", debtors: [{ type: "Individual" }] });
  });

  it("reads a run of amendment rows as amendments of a filing loaded apart, though they repeat its date", async () => {
    const text = [
      HEADER,
      "GA,2,2025-01-02,,amendment,,,,,,,,,,2-A,2025-03-01,Continuation",
      "GA,2,,,amendment,,,,,,,,,,2-B,2025-04-01,Termination",
    ].join("\n");
    const items = await readCsv(text);
    expect(rejects(items)).toEqual([]);
    expect(
      items.map((i) => ("amendment" in i ? [i.amendment.filingNumber, i.amendment.amendment.kind] : null)),
    ).toEqual([
      ["2", "continuation"],
      ["2", "termination"],
    ]);
  });

  it("rejects a filing whole, with its lines, when one of its rows is bad", async () => {
    const text = [
      HEADER,
      debtorRow("B-1"),
      securedRow("B-1"),
      debtorRow("B-2"),
      "IL,B-2,,,borrower,Organization,Second Debtor,,9 Elm St,,Springfield,IL,62701,US,,,",
      securedRow("B-2"),
      debtorRow("B-3"),
      securedRow("B-3"),
    ].join("\n");
    const items = await readCsv(text);
    expect(numbers(items)).toEqual(["B-1", "B-3"]);
    expect(rejects(items)).toEqual([
      {
        file: "t.csv",
        line: 4,
        end_line: 6,
        reason: 'line 5 role: "borrower" is not a role: use debtor, secured or amendment',
        raw: [
          debtorRow("B-2"),
          "IL,B-2,,,borrower,Organization,Second Debtor,,9 Elm St,,Springfield,IL,62701,US,,,",
          securedRow("B-2"),
        ].join("\n"),
      },
    ]);
  });

  it("rejects the filing of an unreadable row rather than loading it without that row", async () => {
    const broken = 'IL,C-2,,,debtor,Organization,"Broken "Quote" Inc",,1 Main St,,Springfield,IL,62701,US,,,';
    const text = [
      HEADER,
      debtorRow("C-1"),
      securedRow("C-1"),
      debtorRow("C-2"),
      broken,
      securedRow("C-2"),
      debtorRow("C-3"),
      securedRow("C-3"),
    ].join("\n");
    const items = await readCsv(text);
    expect(numbers(items)).toEqual(["C-1", "C-3"]);
    const [reject] = rejects(items);
    expect(reject).toMatchObject({ line: 4, end_line: 6 });
    expect(reject!.reason).toMatch(/^line 5: not a valid CSV row: /);
  });

  it("rejects both neighbours of an unreadable row whose filing cannot be told", async () => {
    const broken = '"IL,D-?,,,debtor,Organization,Lost Row,,1 Main St,,Springfield,IL,62701,US,,,';
    const text = [
      HEADER,
      debtorRow("D-1"),
      securedRow("D-1"),
      broken,
      debtorRow("D-2"),
      securedRow("D-2"),
      debtorRow("D-3"),
      securedRow("D-3"),
    ].join("\n");
    const items = await readCsv(text);
    expect(numbers(items)).toEqual(["D-3"]);
    expect(rejects(items).map((r) => [r.line, r.reason])).toEqual([
      [2, expect.stringContaining("line 4: not a valid CSV row")],
      [5, "line 4 just before this filing could not be read and may be one of its rows"],
    ]);
  });

  it("reads each run of a filing's rows on its own, carrying the run, and rejects rows with the wrong field count and unknown roles", async () => {
    const text = [
      HEADER,
      debtorRow("E-1"),
      securedRow("E-1"),
      debtorRow("E-2"),
      securedRow("E-2"),
      securedRow("E-1"),
      "IL,E-3,2025-01-15,,debtor,Organization,Short Row",
      "IL,E-4,2025-01-15,,lender,Organization,Odd Role,,1 Main St,,Springfield,IL,62701,US,,,",
    ].join("\n");
    const items = await readCsv(text);
    expect(numbers(items)).toEqual(["E-1", "E-2"]);
    // E-1's second run, alone, has no filing date: the importer reads it with the first (see below).
    expect(rejects(items).map((r) => r.line)).toEqual([6, 7, 8]);
    expect(
      rejects(items)
        .slice(1)
        .map((r) => r.reason),
    ).toEqual([
      "line 7: has 7 fields, the header has 17",
      'line 8 role: "lender" is not a role: use debtor, secured or amendment',
    ]);
    const runs = items.flatMap((i) => (i.csv && "rows" in i.csv && i.csv.key.number === "E-1" ? [i.csv] : []));
    expect(runs.map((r) => r.rows.map((row) => row.line))).toEqual([[2, 3], [6]]);
    // Read together, the runs are one filing with both lenders.
    const [whole, ...more] = reassembled("t.csv", runs, { now: NOW });
    expect(more).toEqual([]);
    expect(whole && "record" in whole ? whole.record.securedParties.length : 0).toBe(2);
  });

  it("rejects a filing whose rows disagree on its date", async () => {
    const text = [HEADER, debtorRow("F-1"), securedRow("F-1").replace("IL,F-1,,", "IL,F-1,2025-02-01,")].join("\n");
    expect(rejects(await readCsv(text)).map((r) => r.reason)).toEqual([
      'rows disagree on filing_date: "2025-01-15 12:00:00" (line 2) and "2025-02-01" (line 3)',
    ]);
  });

  it("stops a file with an unknown, repeated or missing column before reading any row", async () => {
    await expect(all(csvFilings(readLines(stream(`${HEADER},notes\n`))))).rejects.toThrow(
      /unknown column "notes"; the columns are filing_state, /,
    );
    await expect(all(csvFilings(readLines(stream(`${HEADER},Name\n`))))).rejects.toThrow("column name appears twice");
    await expect(all(csvFilings(readLines(stream("filing_state,filing_number,role\n"))))).rejects.toThrow(
      "missing columns filing_date, name",
    );
    await expect(all(csvFilings(readLines(stream(""))))).rejects.toBeInstanceOf(FeedFileError);
  });
});
