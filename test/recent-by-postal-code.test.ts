import { beforeAll, describe, expect, it } from "vitest";
import { allPagesA, daysAgo, filing, getJson, load, party, registerKeys } from "./helpers.ts";

beforeAll(async () => {
  await registerKeys();
  await load([
    ...Array.from({ length: 11 }, (_, i) =>
      filing({
        number: `ZIP-${String(i).padStart(2, "0")}`,
        filedAt: daysAgo(i + 1),
        debtors: [
          party(`Harbor Freight Co ${i}`, { zip: i % 2 ? "30301-1234" : "30301", label: "Transportation & Logistics" }),
        ],
      }),
    ),
    filing({ number: "ZIP-OTHER", debtors: [party("Elsewhere LLC", { zip: "30302" })] }),
    filing({ number: "ZIP-OLD", filedAt: daysAgo(120), debtors: [party("Old Timer Inc", { zip: "30301" })] }),
    filing({
      number: "ZIP-REAL",
      filedAt: daysAgo(30),
      debtors: [party("Peach Realty LLC", { zip: "30301", label: "Real Estate" })],
      amendments: [{ number: "ZIP-REAL-A1", filedAt: daysAgo(5), kind: "assignment", description: "Assignment" }],
    }),
  ]);
});

describe("GET /filings/recent-by-postal-code", () => {
  it("matches ZIP and ZIP+4 debtors on the first five digits, newest first, in envelope A by default", async () => {
    const body = await getJson("/filings/recent-by-postal-code?postal_code=30301-9999");
    expect(body.pagination).toEqual({
      current_page: 1,
      total_pages: 3,
      page_size: 5,
      total_results: 12,
      next_cursor: expect.any(String),
    });
    expect(body.ucc_liens.map((l) => l.initial_financing_number)).toEqual([
      "ZIP-00",
      "ZIP-01",
      "ZIP-02",
      "ZIP-03",
      "ZIP-04",
    ]);
    expect(body.ucc_liens[1]?.involved_parties.debtor_parties[0]?.address.zip_code).toBe("30301-1234");
  });

  it("walks every page once in envelope A, leaving out other ZIPs and filings older than 90 days", async () => {
    const all = await allPagesA("/filings/recent-by-postal-code?postal_code=30301", "ucc_liens");
    const numbers = all.map((l) => l.initial_financing_number);
    expect(new Set(numbers).size).toBe(12);
    expect(numbers).not.toContain("ZIP-OTHER");
    expect(numbers).not.toContain("ZIP-OLD");
  });

  it("answers in envelope B on request, and its next_page walk visits every match once", async () => {
    const first = await getJson("/filings/recent-by-postal-code?postal_code=30301&envelope=B");
    expect(first).not.toHaveProperty("pagination");
    expect(first.response_metadata).toMatchObject({ page: 1, page_size: 10, next_page: true });
    expect(first.response_metadata.api_version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(first.response_metadata.data_source_last_updated).toMatch(/Z$/);
    const second = await getJson("/filings/recent-by-postal-code?postal_code=30301&envelope=b&page=2");
    expect(second.response_metadata).toMatchObject({ page: 2, next_page: false });
    const numbers = [...first.ucc_liens, ...second.ucc_liens].map((l) => l.initial_financing_number);
    expect(new Set(numbers).size).toBe(12);
    // Amendments belong to the secured-party search only.
    expect(first.ucc_liens[0]?.amendments).toBeUndefined();
  });

  it("filters by debtor industry", async () => {
    const body = await getJson("/filings/recent-by-postal-code?postal_code=30301&industry=real estate");
    expect(body.ucc_liens.map((l) => l.initial_financing_number)).toEqual(["ZIP-REAL"]);
  });

  it("rejects a malformed postal code and an unknown envelope, naming each", async () => {
    const body = await getJson("/filings/recent-by-postal-code?postal_code=3030&envelope=c", 400);
    expect(body.error.details?.map((d) => d.parameter).sort()).toEqual(["envelope", "postal_code"]);
    const missing = await getJson("/filings/recent-by-postal-code", 400);
    expect(missing.error.details).toEqual([{ parameter: "postal_code", message: "is required" }]);
  });
});
