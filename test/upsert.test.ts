/**
 * upsertFilings keeps every derived table consistent when a filing is
 * replaced: what the old version contributed to counts, name indexes,
 * addresses and co-borrower links goes, and the new version's arrives.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { upsertFilings } from "../src/db/load.ts";
import type { FilingRecord } from "../src/db/records.ts";
import { counted } from "./bodies.ts";
import { d1Of, daysAgo, dbOf, drizzleOf, filing, getJson, party, registerKeys } from "./helpers.ts";

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

/** A Drizzle handle over `d1` that hands each batch's results to `after` before answering. */
function afterEachBatch(d1: D1Database, after: (results: D1Result[]) => Promise<unknown> | undefined) {
  return drizzleOf(
    new Proxy(d1, {
      get(target, prop) {
        if (prop === "batch") {
          return async (statements: D1PreparedStatement[]) => {
            const results = await target.batch(statements);
            await after(results);
            return results;
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }),
  );
}

describe("a load that loses a race to another", () => {
  it("writes its version over the one that won, never part of one over the other", async () => {
    const v1 = filing({ number: "RACE-1", collateral: "Equipment" });
    const v2 = {
      ...v1,
      collateral: "All assets",
      amendments: [
        { number: "RACE-1-A", filedAt: daysAgo(2), kind: "collateral_change" as const, description: "Amendment" },
      ],
    };
    const v3 = {
      ...v1,
      collateral: "Equipment and inventory",
      amendments: [
        { number: "RACE-1-C", filedAt: daysAgo(1), kind: "continuation" as const, description: "Continuation" },
      ],
    };
    await upsertFilings(dbOf(v1.state), [v1], { record: false });
    // v3's load reads v1; v2's load then replaces it; v3's write must not land on v2 as if it were v1.
    // Its first batch is the read of what is stored: v2's load writes before it is answered.
    let raced = false;
    const db = afterEachBatch(d1Of(v1.state), async () => {
      if (raced) return;
      raced = true;
      await upsertFilings(dbOf(v1.state), [v2], { record: false });
    });
    expect(await upsertFilings(db, [v3], { record: false })).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    const d1 = d1Of(v1.state);
    const stored = await d1
      .prepare("select id, collateral from filings where number = 'RACE-1'")
      .first<{ id: number; collateral: string }>();
    expect(stored?.collateral).toBe("Equipment and inventory");
    const amended = await d1
      .prepare("select number from amendments where filing_id = ? order by position")
      .bind(stored?.id)
      .all<{ number: string }>();
    expect(amended.results.map((a) => a.number)).toEqual(["RACE-1-C"]);
  });
});

describe("what replacing a filing writes, as D1 counts it (index entries too)", () => {
  it("writes the new amendment's row and the filing's, not every party row and index entry again", async () => {
    // Filed four years and ten months ago: a continuation filed now moves its lapse date.
    const stored = filing({
      number: "WRITES-1",
      filedAt: daysAgo(5 * 365 - 60),
      debtors: [
        party("Writes One LLC", { label: "Manufacturing", zip: "94107" }),
        party("Writes Two LLC", { label: "Retail & E-commerce", zip: "94110" }),
      ],
      securedParties: [party("Alpha Bank, N.A."), party("Beta Bank")],
    });
    await upsertFilings(dbOf(stored.state), [stored], { record: false });
    const written = { rows: 0 };
    const db = afterEachBatch(d1Of(stored.state), (results) => {
      for (const r of results) written.rows += r.meta.rows_written ?? 0;
      return undefined;
    });
    const amended = {
      ...stored,
      collateral: "All equipment",
      amendments: [
        { number: "WRITES-1-A", filedAt: daysAgo(1), kind: "collateral_change" as const, description: "Amendment" },
      ],
    };
    await upsertFilings(db, [amended], { record: false, refresh: false });
    // The change and its name index, the debtors queued, the lenders looked up, the filing's row
    // updated and the amendment's added: 42 rows here. Deleting and inserting every row of the
    // filing (each party with its index entries) wrote 68.
    expect(written.rows).toBeLessThanOrEqual(45);

    // A continuation moves the lapse date the parties carry: their rows are updated in that column
    // (with the lapse list's index entries), beside the counts it moves: 58 rows here, 77 before.
    written.rows = 0;
    const continued = {
      ...amended,
      amendments: [
        ...amended.amendments,
        { number: "WRITES-1-C", filedAt: daysAgo(0), kind: "continuation" as const, description: "Continuation" },
      ],
    };
    await upsertFilings(db, [continued], { record: false, refresh: false });
    expect(written.rows).toBeLessThanOrEqual(62);
  });
});

describe("a replacement that leaves a field out", () => {
  it("clears it, as a filing loaded anew without it would have none", async () => {
    const v1 = filing({ number: "CLEAR-1", collateral: "All inventory", filingOffice: "Secretary of State" });
    const { collateral: _, filingOffice: __, ...v2 } = v1;
    await upsertFilings(dbOf(v1.state), [v1], { record: false });
    await upsertFilings(dbOf(v1.state), [v2], { record: false });
    const stored = await d1Of(v1.state)
      .prepare("select collateral, filing_office from filings where number = 'CLEAR-1'")
      .first<{ collateral: string | null; filing_office: string | null }>();
    expect(stored).toEqual({ collateral: null, filing_office: null });
  });
});
