import { beforeAll, describe, expect, it } from "vitest";
import { database, readerOf } from "../src/queries/db.ts";
import { knownAddressesAcross } from "../src/queries/fanout.ts";
import { allPagesA, daysAgo, filing, getJson, load, party, registerKeys, shards } from "./helpers.ts";

const at = (street1: string, zip: string, state = "CA") => ({ street1, zip, state });
const suiteAddress = { street1: "77 Tower Pl", city: "Springfield", state: "CA", zipCode: "90011" };

/** `d1`, with the SQL text of every statement it prepares added to `sent`. */
const recording = (d1: D1Database, sent: string[]) =>
  new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") {
        return (query: string) => {
          sent.push(query);
          return target.prepare(query);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });

beforeAll(async () => {
  await registerKeys();
  await load([
    // One debtor under several spellings, at two addresses, with an owner as co-borrower.
    filing({
      number: "D-1",
      filedAt: daysAgo(900),
      debtors: [
        party("ACME COMPANY", at("10 Old Rd", "90001")),
        party("Ann Owner", { type: "Individual", ...at("5 Home Ln", "90002") }),
      ],
    }),
    filing({ number: "D-2", filedAt: daysAgo(400), debtors: [party("Acme Inc", at("10 Old Rd", "90001"))] }),
    filing({
      number: "D-3",
      filedAt: daysAgo(30),
      debtors: [
        party("The Acme Co., Inc.", at("200 New Ave", "90003")),
        party("Ann Owner", { type: "Individual", ...at("5 Home Ln", "90002") }),
        party("Acme Holdings LLC", at("200 New Ave", "90003")),
      ],
    }),
    filing({ number: "D-4", filedAt: daysAgo(20), debtors: [party("acme,   inc.", at("10 OLD RD.", "90001"))] }),
    // Same key in another state: its own filings, but a known address of the name.
    filing({
      number: "D-NV",
      state: "NV",
      filedAt: daysAgo(10),
      debtors: [
        party("Acme Corp", at("9 Desert Way", "89101", "NV")),
        party("Nevada Partner LLC", at("1 Strip", "89102", "NV")),
      ],
    }),
    // Names that only look alike.
    filing({ number: "D-X1", debtors: [party("Acme Industries Inc", at("1 Other", "90009"))] }),
    filing({ number: "D-X2", debtors: [party("Acmee Co", at("1 Other", "90009"))] }),
    // One building, two suites: two places, told apart by street2.
    ...["Suite 100", "Suite 200"].map((street2, i) =>
      filing({
        number: `S-${i}`,
        filedAt: daysAgo(50 + i),
        debtors: [{ ...party("Suite Tenant LLC"), address: { ...suiteAddress, street2 } }],
      }),
    ),
    ...Array.from({ length: 6 }, (_, i) =>
      filing({
        number: `M-${i}`,
        filedAt: daysAgo(100 + i),
        debtors: [party("Many Filings LLC", at(`${i} Loop`, "90010"))],
      }),
    ),
  ]);
});

describe("GET /debtors/search", () => {
  it("finds every spelling of the name under UCC search logic, newest first, of any date, in the state only", async () => {
    const body = await getJson("/debtors/search?name=The%20Acme%20Co.,%20Inc.&state=CA");
    expect(body.ucc_liens.map((l) => l.initial_financing_number)).toEqual(["D-4", "D-3", "D-2", "D-1"]);
    expect(body.pagination).toEqual({ current_page: 1, total_pages: 1, page_size: 5, total_results: 4 });
    expect(body.ucc_liens[1]?.involved_parties.debtor_parties).toHaveLength(3);
  });

  it("finds nothing for a name that only looks alike", async () => {
    const body = await getJson("/debtors/search?name=Acme%20Industries&state=NV");
    expect(body.ucc_liens).toEqual([]);
    expect(body.pagination.total_pages).toBe(0);
  });

  it("pages through a debtor with many filings, each once", async () => {
    const all = await allPagesA("/debtors/search?name=many%20filings&state=CA", "ucc_liens");
    expect(all.map((l) => l.initial_financing_number)).toEqual(["M-0", "M-1", "M-2", "M-3", "M-4", "M-5"]);
  });

  it("rejects an empty, punctuation-only or overlong name and a missing state", async () => {
    const long = "a".repeat(1001);
    for (const [query, params] of [
      ["name=&state=CA", ["name"]],
      ["name=%21%21%21&state=CA", ["name"]],
      [`name=${long}&state=CA`, ["name"]],
      ["name=Acme", ["state"]],
    ] as const) {
      const body = await getJson(`/debtors/search?${query}`, 400);
      expect(body.error.details?.map((d) => d.parameter)).toEqual(params);
    }
  });
});

describe("GET /debtors/addresses", () => {
  it("lists each distinct address of the name once, across states, most recently used first", async () => {
    const body = await getJson("/debtors/addresses?name=acme");
    expect(body.debtor_name).toBe("acme");
    expect(body.addresses).toEqual([
      { street1: "9 Desert Way", street2: null, city: "Springfield", state: "NV", zip_code: "89101" },
      // "10 OLD RD." and "10 Old Rd" are one address, shown as most recently filed.
      { street1: "10 OLD RD.", street2: null, city: "Springfield", state: "CA", zip_code: "90001" },
      { street1: "200 New Ave", street2: null, city: "Springfield", state: "CA", zip_code: "90003" },
    ]);
    expect(body.pagination).toEqual({ current_page: 1, total_pages: 1, page_size: 5, total_results: 3 });
  });

  it("lists two suites of one building apart, each with its street2", async () => {
    const body = await getJson("/debtors/addresses?name=Suite%20Tenant%20LLC");
    expect(body.addresses).toEqual([
      { street1: "77 Tower Pl", street2: "Suite 100", city: "Springfield", state: "CA", zip_code: "90011" },
      { street1: "77 Tower Pl", street2: "Suite 200", city: "Springfield", state: "CA", zip_code: "90011" },
    ]);
  });

  it("pages addresses five at a time", async () => {
    const all = await allPagesA("/debtors/addresses?name=Many%20Filings%20L.L.C.", "addresses");
    expect(all.map((a) => a.street1)).toEqual(["0 Loop", "1 Loop", "2 Loop", "3 Loop", "4 Loop", "5 Loop"]);
  });

  it("reads each shard's address sets once for a page past the first two, by number", async () => {
    const sent: string[] = [];
    const reader = readerOf(
      new Map([...shards.databases].map(([shard, d1]) => [shard, database(recording(d1, sent))])),
    );
    const page = await knownAddressesAcross(reader, "Many Filings L.L.C.", { page: 4, size: 1 });
    expect(page.rows.map((row) => row.street1)).toEqual(["3 Loop"]);
    expect(page.total).toBe(6);
    // The sets statement reads debtor_address_sets alone; the rows statement joins debtor_addresses.
    const setReads = sent.filter((text) => /from "debtor_address_sets" where/.test(text));
    expect(setReads).toHaveLength(shards.databases.size);
  });
});

describe("GET /debtors/associated/", () => {
  it("lists the other debtors on the debtor's filings in the state, once per name and address", async () => {
    const body = await getJson("/debtors/associated/?name=Acme%20Company&state=CA");
    expect(body).toMatchObject({ debtor_name: "Acme Company", debtor_state: "CA" });
    expect(body.associated_debtors).toEqual([
      {
        debtor_name: "Ann Owner",
        address: {
          street_address_1: "5 Home Ln",
          street_address_2: null,
          city: "Springfield",
          state: "CA",
          postal_code: "90002",
        },
      },
      {
        debtor_name: "Acme Holdings LLC",
        address: {
          street_address_1: "200 New Ave",
          street_address_2: null,
          city: "Springfield",
          state: "CA",
          postal_code: "90003",
        },
      },
    ]);
    expect(body.pagination.total_results).toBe(2);
  });

  it("keeps to the state asked for", async () => {
    const body = await getJson("/debtors/associated/?name=Acme&state=NV");
    expect(body.associated_debtors.map((a) => a.debtor_name)).toEqual(["Nevada Partner LLC"]);
  });

  it("works from the co-borrower's side, with one entry per address of the same name", async () => {
    const body = await getJson("/debtors/associated/?name=ann%20owner&state=CA");
    expect(body.associated_debtors.map((a) => a.debtor_name).sort()).toEqual([
      "ACME COMPANY",
      "Acme Holdings LLC",
      "The Acme Co., Inc.",
    ]);
  });
});
