import { beforeAll, describe, expect, it } from "vitest";
import { PARTY_LOOKUPS } from "../src/queries/filings.ts";
import { firstOf } from "./bodies.ts";
import { daysAgo, filing, getJson, load, party, registerKeys } from "./helpers.ts";

const wells = party("WELLS FARGO BANK, N.A.", { label: "Bank", zip: "94104" });
const assignedAt = daysAgo(30);
const individualFiledAt = daysAgo(40);
const many = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
const MANY_DEBTORS = many("Debtor Holdings", PARTY_LOOKUPS + 3);
const MANY_LENDERS = many("Lender Capital", PARTY_LOOKUPS);
const MANY_AMENDMENTS = many("WF-MANY-A", 2 * PARTY_LOOKUPS + 1);

beforeAll(async () => {
  await registerKeys();
  await load([
    ...Array.from({ length: 11 }, (_, i) =>
      filing({ number: `WF-${String(i).padStart(2, "0")}`, filedAt: daysAgo(i + 1), securedParties: [wells] }),
    ),
    filing({
      number: "WF-IND",
      filedAt: individualFiledAt,
      debtors: [party("Pat Q. Public", { type: "Individual" })],
      securedParties: [party("Wells Fargo Equipment Finance, Inc.")],
      amendments: [
        { number: "WF-IND-C", filedAt: daysAgo(20), kind: "collateral_change", description: "Amendment - Collateral" },
        { number: "WF-IND-A", filedAt: assignedAt, kind: "assignment", description: "Assignment" },
      ],
    }),
    filing({ number: "WFARGO-NO", securedParties: [party("Wellsfargo Lending LLC")] }),
    filing({ number: "WF-NV", state: "NV", securedParties: [wells] }),
    filing({ number: "WF-OLD", filedAt: daysAgo(100), securedParties: [wells] }),
    // Two lenders the same search finds, on one filing (and one of them twice).
    filing({
      number: "WF-TWO",
      state: "OR",
      securedParties: [party("Wells Fargo Equipment Finance, Inc."), wells, party("Wells Fargo Bank NA")],
    }),
    filing({ number: "WF-OR", state: "OR", filedAt: daysAgo(5), securedParties: [wells] }),
    // More parties and amendments than a page looks up one by one (PARTY_LOOKUPS).
    filing({
      number: "WF-MANY",
      state: "WA",
      debtors: MANY_DEBTORS.map((name) => party(name)),
      securedParties: [...MANY_LENDERS.map((name) => party(name)), wells],
      amendments: MANY_AMENDMENTS.map((number, i) => ({
        number,
        filedAt: daysAgo(9 - i / 10),
        kind: "party_change",
        description: "Amendment - Party Information",
      })),
    }),
  ]);
});

describe("GET /secureds/recent-by-secured-party", () => {
  it("matches whole leading words case-insensitively, within the state and the last 90 days", async () => {
    const first = await getJson("/secureds/recent-by-secured-party?name=wells%20fargo&state=ca");
    const second = await getJson("/secureds/recent-by-secured-party?name=wells%20fargo&state=ca&page=2");
    const numbers = [...first.ucc_liens, ...second.ucc_liens].map((l) => l.initial_financing_number);
    expect(numbers.sort()).toEqual(
      [...Array.from({ length: 11 }, (_, i) => `WF-${String(i).padStart(2, "0")}`), "WF-IND"].sort(),
    );
    expect(first.response_metadata).toMatchObject({ page: 1, page_size: 10, next_page: true });
    expect(second.response_metadata).toMatchObject({ page: 2, next_page: false });
  });

  it("lists a filing once however many of its lenders match", async () => {
    const body = await getJson("/secureds/recent-by-secured-party?name=wells%20fargo&state=OR");
    expect(body.ucc_liens.map((l) => l.initial_financing_number)).toEqual(["WF-OR", "WF-TWO"]);
    expect(body.response_metadata.next_page).toBe(false);
  });

  it("lists every party and amendment of a filing with more of them than are looked up one by one", async () => {
    const body = await getJson("/secureds/recent-by-secured-party?name=wells%20fargo&state=WA");
    const lien = firstOf(body.ucc_liens);
    expect(lien.involved_parties.debtor_parties.map((d) => d.name)).toEqual(MANY_DEBTORS);
    expect(lien.involved_parties.secured_parties.map((s) => s.name)).toEqual([...MANY_LENDERS, wells.name]);
    expect(lien.amendments?.map((a) => a.amendment_financing_number)).toEqual(MANY_AMENDMENTS);
    const listed = await getJson("/filings/recent-by-state?state=WA");
    expect(firstOf(listed.ucc_liens).involved_parties.debtor_parties).toHaveLength(MANY_DEBTORS.length);
  });

  it("does not match a partial word", async () => {
    const body = await getJson("/secureds/recent-by-secured-party?name=wells%20far&state=CA");
    expect(body.ucc_liens).toEqual([]);
    expect(body.response_metadata.next_page).toBe(false);
  });

  it("matches a full name written with other punctuation", async () => {
    const body = await getJson("/secureds/recent-by-secured-party?name=Wells-Fargo%20Bank%20NA&state=CA");
    expect(body.ucc_liens).toHaveLength(10);
  });

  it("returns envelope B by default with lapse, status, search URL, party types and amendments in date order", async () => {
    const body = await getJson("/secureds/recent-by-secured-party?name=wells%20fargo%20equipment&state=CA");
    expect(body.ucc_liens).toHaveLength(1);
    const lien = firstOf(body.ucc_liens);
    expect(lien).toMatchObject({
      initial_financing_number: "WF-IND",
      estimated_lien_status: "Active",
      jurisdiction_state: "CA",
      search_url: expect.stringMatching(/^https:\/\//),
    });
    expect(lien.initial_financing_date).toBe(individualFiledAt);
    expect(lien.estimated_lien_lapse_date).toBe(
      `${Number(individualFiledAt.slice(0, 4)) + 5}${individualFiledAt.slice(4, 10)}`,
    );
    expect(lien.involved_parties.debtor_parties[0]).toEqual({
      name: "Pat Q. Public",
      type: "Individual",
      category: "Individual",
      address: {
        street1: "1 Main St",
        city: "Springfield",
        state: "CA",
        zip_code: "94107",
        country: null,
        maps_url: expect.stringContaining("1%20Main%20St"),
      },
    });
    expect(lien.involved_parties.secured_parties[0]).toMatchObject({
      type: "Secured Party",
      category: "Secured Party",
    });
    expect(lien.amendments).toEqual([
      {
        amendment_financing_number: "WF-IND-A",
        amendment_financing_date: assignedAt,
        amendment_financing_type_description: "Assignment",
      },
      expect.objectContaining({
        amendment_financing_number: "WF-IND-C",
        amendment_financing_type_description: "Amendment - Collateral",
      }),
    ]);
  });

  it("filters by borrower type", async () => {
    const individuals = await getJson(
      "/secureds/recent-by-secured-party?name=wells%20fargo&state=CA&borrower_type=individual",
    );
    expect(individuals.ucc_liens.map((l) => l.initial_financing_number)).toEqual(["WF-IND"]);
    const orgs = await getJson(
      "/secureds/recent-by-secured-party?name=wells%20fargo&state=CA&borrower_type=Organization&envelope=a",
    );
    expect(orgs.pagination.total_results).toBe(11);
  });

  it("answers in envelope A on request, without amendments", async () => {
    const body = await getJson("/secureds/recent-by-secured-party?name=wells%20fargo&state=CA&envelope=a");
    expect(body.pagination).toEqual({
      current_page: 1,
      total_pages: 3,
      page_size: 5,
      total_results: 12,
      next_cursor: expect.any(String),
    });
    expect(body.ucc_liens[0]).not.toHaveProperty("amendments");
    expect(body.ucc_liens[0]).not.toHaveProperty("search_url");
  });

  it("rejects a bad borrower type, a missing state and an empty name, naming each", async () => {
    const body = await getJson("/secureds/recent-by-secured-party?name=%20%20&borrower_type=robot", 400);
    expect(body.error.details?.map((d) => d.parameter).sort()).toEqual(["borrower_type", "name", "state"]);
  });
});
