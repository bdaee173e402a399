/**
 * upsertFilings keeps every derived table consistent when a filing is
 * replaced: what the old version contributed to counts, name indexes,
 * addresses and co-borrower links goes, and the new version's arrives.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { upsertFilings } from "../src/db/load.ts";
import type { FilingRecord } from "../src/db/records.ts";
import { counted } from "./bodies.ts";
import { d1Of, daysAgo, dbOf, filing, getJson, party, registerKeys } from "./helpers.ts";

const before: FilingRecord = filing({
  number: "UP-1",
  debtors: [
    party("Old Name Co", { label: "Manufacturing", zip: "94107" }),
    party("Ann Partner", { type: "Individual", zip: "94107", street1: "5 Home Ln" }),
  ],
  securedParties: [party("Alpha Bank, N.A.")],
});
const after: FilingRecord = {
  ...before,
  debtors: [
    party("New Name Co", { label: "Equipment", zip: "94110" }),
    party("Ann Partner", { type: "Individual", zip: "94110", street1: "5 Home Ln" }),
  ],
  securedParties: [party("Beta Bank")],
  amendments: [{ number: "UP-1-T", filedAt: daysAgo(1), kind: "termination", description: "Termination" }],
};

let reads = 0;
/** Total (envelope A) of a list, read past the edge cache. */
async function total(path: string): Promise<number> {
  reads += 1;
  return counted.parse(await getJson(`${path}&read=${reads}`)).pagination.total_results;
}

const loads = async () =>
  Number((await d1Of(before.state).prepare("select count(*) as n from data_loads").first<{ n: number }>())?.n);

let summaries: Awaited<ReturnType<typeof upsertFilings>>[] = [];

beforeAll(async () => {
  await registerKeys();
  summaries = [
    // Written to the filing's own shard, where the API reads its state.
    await upsertFilings(dbOf(before.state), [before], { record: false }),
    await upsertFilings(dbOf(before.state), [after]),
    await upsertFilings(dbOf(before.state), [after]),
  ];
});

describe("replacing a filing with upsertFilings", () => {
  it("reports it inserted, then updated, then unchanged", () => {
    expect(summaries).toEqual([
      { inserted: 1, updated: 0, unchanged: 0 },
      { inserted: 0, updated: 1, unchanged: 0 },
      { inserted: 0, updated: 0, unchanged: 1 },
    ]);
  });

  it("records a data load only when asked to", async () => {
    expect(await loads()).toBe(2);
  });

  it("moves the filing's counts from its old facets to its new ones", async () => {
    expect(await total("/filings/recent-by-state?state=CA")).toBe(1);
    expect(await total("/filings/recent-by-state?state=CA&industry=Manufacturing")).toBe(0);
    expect(await total("/filings/recent-by-state?state=CA&industry=Equipment")).toBe(1);
    expect(await total("/filings/recent-by-postal-code?postal_code=94107")).toBe(0);
    expect(await total("/filings/recent-by-postal-code?postal_code=94110")).toBe(1);
    expect(await total("/secureds/recent-by-secured-party?name=alpha&state=CA&envelope=a")).toBe(0);
    expect(await total("/secureds/recent-by-secured-party?name=beta%20bank&state=CA&envelope=a")).toBe(1);
    expect(await total("/filings/recently-terminated?state=CA")).toBe(1);
  });

  it("forgets the old debtor name and knows the new one", async () => {
    expect(await total("/debtors/search?name=Old%20Name&state=CA")).toBe(0);
    expect(await total("/debtors/search?name=New%20Name&state=CA")).toBe(1);
    expect(await total("/debtors/addresses?name=Old%20Name")).toBe(0);
    const similar = await getJson("/debtors/search-similar?name=Old%20Name%20Co&read=s");
    expect(similar.similar_debtors.map((d) => d.debtor_name)).not.toContain("Old Name Co");
  });

  it("rebuilds the co-borrower's links and addresses from the new version", async () => {
    const links = await getJson("/debtors/associated/?name=Ann%20Partner&state=CA&read=a");
    expect(links.associated_debtors.map((d) => d.debtor_name)).toEqual(["New Name Co"]);
    const addresses = await getJson("/debtors/addresses?name=Ann%20Partner&read=b");
    expect(addresses.addresses.map((a) => a.zip_code)).toEqual(["94110"]);
    // Counted from the debtor's address set, rebuilt too: the old address is gone from it.
    expect(addresses.pagination.total_results).toBe(1);
  });
});
