import { beforeAll, describe, expect, it } from "vitest";
import { firstOf } from "./bodies.ts";
import { allPagesA, daysAgo, filing, getJson, load, party, registerKeys } from "./helpers.ts";

const terminated = (number: string, filedDaysAgo: number, terminatedDaysAgo: number, state = "TX") =>
  filing({
    number,
    state,
    filedAt: daysAgo(filedDaysAgo),
    debtors: [party(`${number} Debtor LLC`, { state }), party("Second Debtor", { type: "Individual" })],
    securedParties: [party(`${number} Lender`), party("Co-Lender Bank")],
    amendments: [
      { number: `${number}-T`, filedAt: daysAgo(terminatedDaysAgo), kind: "termination", description: "Termination" },
    ],
  });

beforeAll(async () => {
  await registerKeys();
  await load([
    ...Array.from({ length: 7 }, (_, i) => terminated(`23-000${i}`, 400 + i, 10 + i * 5)),
    terminated("23-OLDTERM", 800, 95),
    terminated("23-CA", 300, 3, "CA"),
    filing({ number: "23-ACTIVE", state: "TX", filedAt: daysAgo(5) }),
  ]);
});

describe("GET /filings/recently-terminated", () => {
  it("lists filings terminated in the last 90 days, most recent termination first", async () => {
    const body = await getJson("/filings/recently-terminated?state=tx");
    expect(body.pagination).toEqual({
      current_page: 1,
      total_pages: 2,
      page_size: 5,
      total_results: 7,
      next_cursor: expect.any(String),
    });
    expect(body.terminated_filings.map((t) => t.initial_financing_number)).toEqual([
      "23-0000",
      "23-0001",
      "23-0002",
      "23-0003",
      "23-0004",
    ]);
  });

  it("shapes each entry with the termination date, first debtor and first secured party", async () => {
    const body = await getJson("/filings/recently-terminated?state=TX");
    expect(body.terminated_filings[0]).toEqual({
      initial_financing_number: "23-0000",
      initial_financing_date: expect.stringMatching(/Z$/),
      termination_date: expect.stringMatching(/Z$/),
      debtor: {
        name: "23-0000 Debtor LLC",
        address: { street1: "1 Main St", city: "Springfield", state: "TX", zip_code: "94107" },
      },
      secured_party: {
        name: "23-0000 Lender",
        address: { street1: "1 Main St", city: "Springfield", state: "CA", zip_code: "94107" },
      },
    });
    const t = firstOf(body.terminated_filings);
    expect(t.termination_date > t.initial_financing_date).toBe(true);
  });

  it("walks all pages once and leaves out older terminations, other states and active filings", async () => {
    const all = await allPagesA("/filings/recently-terminated?state=TX", "terminated_filings");
    const numbers = all.map((t) => t.initial_financing_number);
    expect(numbers).toHaveLength(7);
    expect(new Set(numbers).size).toBe(7);
    for (const absent of ["23-OLDTERM", "23-CA", "23-ACTIVE"]) expect(numbers).not.toContain(absent);
  });

  it("takes the state as a two-letter code, not a number", async () => {
    const body = await getJson("/filings/recently-terminated?state=48", 400);
    expect(body.error.details?.[0]?.parameter).toBe("state");
  });
});
