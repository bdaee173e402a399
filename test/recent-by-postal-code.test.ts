import { beforeAll, describe, expect, it } from "vitest";
import { INDUSTRIES } from "../src/domain/industries.ts";
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

describe("industry counts over filings with several industries in a postal code", () => {
  // Debtors in 97210 with sets of up to five of the listed industries, with
  // other labels, debtors without one, and debtors elsewhere whose
  // industries must not count; some filed before the window.
  const sets: string[][] = Array.from({ length: 40 }, (_, i) =>
    Array.from({ length: i % 6 }, (_, k) => INDUSTRIES[(i * 7 + k * 4) % INDUSTRIES.length]!),
  );
  const records = sets.map((labels, i) =>
    filing({
      state: "OR",
      number: `OR-ZIP-IND-${String(i).padStart(2, "0")}`,
      filedAt: daysAgo(i % 9 === 8 ? 95 : 1 + i),
      debtors: [
        ...labels.map((label, k) => party(`Industry ${i} ${k} LLC`, { label, zip: "97210", state: "OR" })),
        party(`Other ${i} Inc`, { label: i % 3 === 0 ? "Space Mining" : null, zip: "97210-0001", state: "OR" }),
        party(`Elsewhere ${i} Co`, { label: INDUSTRIES[i % INDUSTRIES.length]!, zip: "97211", state: "OR" }),
      ],
    }),
  );
  const recent = records.filter((_, i) => i % 9 !== 8);

  beforeAll(async () => {
    await load(records);
  });

  // Every number of industries asked for, from one (inclusion-exclusion) to
  // all of them (every filing minus those that avoid them).
  const queries: string[][] = Array.from({ length: INDUSTRIES.length }, (_, n) =>
    Array.from({ length: n + 1 }, (_, k): string => INDUSTRIES[(n * 5 + k * 2) % INDUSTRIES.length]!),
  );

  it.each(queries.map((q) => [q.length, q] as const))(
    "counts exactly with %i industries asked for, as the filings listed, by the debtors in the postal code only",
    async (_, asked) => {
      const path =
        `/filings/recent-by-postal-code?postal_code=97210&industry=${encodeURIComponent(asked.join(","))}` as const;
      const expected = recent.filter((r) =>
        r.debtors.some((d) => d.address.zipCode?.startsWith("97210") && d.label != null && asked.includes(d.label)),
      );
      const first = await getJson(path);
      expect(first.pagination.total_results).toBe(expected.length);
      const all = await allPagesA(path, "ucc_liens");
      expect(all.map((l) => l.initial_financing_number).sort()).toEqual(expected.map((r) => r.number).sort());
    },
  );
});
