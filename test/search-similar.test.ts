import { beforeAll, describe, expect, it } from "vitest";
import { SIMILARITY_THRESHOLD } from "../src/domain/similarity.ts";
import { filing, get, getJson, load, party, registerKeys } from "./helpers.ts";

const names: [string, string][] = [
  ["Prairie Bakery LLC", "CA"],
  ["Sanchez & Sons Cafe, Inc.", "NY"],
  ["Blue Ridge Trucking Company", "VA"],
  ["O'Brien Dental P.C.", "MA"],
  ["Golden Gate Machine Works Corp.", "CA"],
  ["Kowalski Equipment Rental", "IL"],
  ["Summit Roofing Inc", "CO"],
  ["Pioneer Bakery LLC", "CA"],
];

beforeAll(async () => {
  await registerKeys();
  await load([
    ...names.map(([name, state]) => filing({ state, debtors: [party(name, { state })] })),
    // More filings of one debtor, under other spellings: counted together.
    filing({ debtors: [party("PRAIRIE BAKERY, L.L.C.")] }),
    filing({ debtors: [party("Prairie Bakery Inc")] }),
    filing({ state: "NV", debtors: [party("Prairie Bakery LLC", { state: "NV" })] }),
  ]);
});

describe("GET /debtors/search-similar", () => {
  it.each([
    ["a typo", "Prarie Bakery", "Prairie Bakery LLC"],
    ["two typos", "Prarie Bakkery", "Prairie Bakery LLC"],
    ["swapped word order", "Bakery Prairie", "Prairie Bakery LLC"],
    ["another legal ending", "Prairie Bakery Corporation", "Prairie Bakery LLC"],
    ["no legal ending", "Sanchez and Sons Cafe", "Sanchez & Sons Cafe, Inc."],
    ["a sound-alike letter", "Sanches & Sons Kafe", "Sanchez & Sons Cafe, Inc."],
    ["missing punctuation", "OBrien Dental PC", "O'Brien Dental P.C."],
    ["words run together", "blueridge trucking", "Blue Ridge Trucking Company"],
    ["a dropped word", "Golden Gate Machine", "Golden Gate Machine Works Corp."],
    ["a transposition", "Kowalksi Equipment Rental", "Kowalski Equipment Rental"],
    ["different case and spacing", "  summit   ROOFING  ", "Summit Roofing Inc"],
  ])("finds its target on the first page despite %s", async (_, query, target) => {
    const body = await getJson(`/debtors/search-similar?name=${encodeURIComponent(query)}`);
    const found = body.similar_debtors.map((d: any) => d.debtor_name);
    expect(found).toContain(target);
  });

  it("ranks the closest first, with state, filing count and a score in [0, 1]", async () => {
    const body = await getJson("/debtors/search-similar?name=Prairie%20Bakery&state=CA");
    expect(body.similar_debtors[0]).toEqual({
      debtor_name: "Prairie Bakery Inc",
      debtor_state: "CA",
      filing_count: 3,
      score: 1,
    });
    for (const d of body.similar_debtors) {
      expect(d.score).toBeGreaterThanOrEqual(SIMILARITY_THRESHOLD);
      expect(d.score).toBeLessThanOrEqual(1);
    }
    const scores = body.similar_debtors.map((d: any) => d.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(body.pagination).toMatchObject({ current_page: 1, page_size: 5 });
  });

  it("keeps to the state when one is given, and spans states otherwise", async () => {
    const inCa = await getJson("/debtors/search-similar?name=Prairie%20Bakery&state=ca");
    expect(inCa.similar_debtors.map((d: any) => d.debtor_state)).not.toContain("NV");
    const anywhere = await getJson("/debtors/search-similar?name=Prairie%20Bakery");
    expect(anywhere.similar_debtors.map((d: any) => d.debtor_state)).toEqual(expect.arrayContaining(["CA", "NV"]));
  });

  it.each(["Acme Widgets", "Zebra Logistics", "Quantum Software"])(
    "does not offer unrelated names for %s",
    async (query) => {
      const body = await getJson(`/debtors/search-similar?name=${encodeURIComponent(query)}`);
      expect(body.similar_debtors).toEqual([]);
      expect(body.pagination.total_results).toBe(0);
    },
  );

  it("leaves a merely related name below the threshold", async () => {
    const body = await getJson("/debtors/search-similar?name=Prairie%20Bakery&state=CA");
    expect(body.similar_debtors.map((d: any) => d.debtor_name)).not.toContain("Pioneer Bakery LLC");
  });

  it("needs a key and a name", async () => {
    expect((await get("/debtors/search-similar?name=x", null)).status).toBe(401);
    const body = await getJson("/debtors/search-similar?state=CA", 400);
    expect(body.error.details.map((d: any) => d.parameter)).toEqual(["name"]);
  });
});
