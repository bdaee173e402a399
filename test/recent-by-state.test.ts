import { beforeAll, describe, expect, it } from "vitest";
import { INDUSTRIES } from "../src/domain/industries.ts";
import { isoSeconds, recentWindowStart } from "../src/domain/time.ts";
import type { ErrorBody } from "./bodies.ts";
import { allPagesA, daysAgo, filing, get, getJson, load, party, registerKeys } from "./helpers.ts";

const windowStart = recentWindowStart(Date.now());

beforeAll(async () => {
  await registerKeys();
  await load([
    ...Array.from({ length: 12 }, (_, i) =>
      filing({ number: `CA-REC-${String(i).padStart(2, "0")}`, filedAt: daysAgo(i + 1) }),
    ),
    filing({
      number: "CA-FOOD",
      filedAt: daysAgo(20),
      debtors: [
        party("Sunrise Bakery Inc", { label: "Food & Beverage" }),
        party("Jane Doe", { type: "Individual" }),
        party("Doe Holdings LLC"),
      ],
    }),
    filing({ number: "CA-OLD", filedAt: daysAgo(91) }),
    // Either side of the window's start: midnight UTC, 90 days before today.
    filing({ number: "CA-EDGE-IN", filedAt: windowStart }),
    filing({ number: "CA-EDGE-OUT", filedAt: isoSeconds(Date.parse(windowStart) - 1000) }),
    filing({ number: "NV-REC", state: "NV", filedAt: daysAgo(3) }),
  ]);
});

describe("the recency window", () => {
  it("starts at midnight UTC 90 days back, and moves only when the day changes", () => {
    expect(recentWindowStart(Date.parse("2026-03-31T23:59:59Z"))).toBe("2025-12-31T00:00:00Z");
    expect(recentWindowStart(Date.parse("2026-04-01T00:00:00Z"))).toBe("2026-01-01T00:00:00Z");
    expect(recentWindowStart(new Date("2026-04-01T12:00:00Z"))).toBe("2026-01-01T00:00:00Z");
    expect(recentWindowStart(Date.parse("2026-03-31T12:00:00Z"))).toBe("2025-12-31T00:00:00Z");
  });
});

describe("GET /filings/recent-by-state", () => {
  it("returns five filings in envelope A, newest first", async () => {
    const body = await getJson("/filings/recent-by-state?state=CA");
    expect(body.ucc_liens).toHaveLength(5);
    expect(body.ucc_liens.map((l) => l.initial_financing_number)).toEqual([
      "CA-REC-00",
      "CA-REC-01",
      "CA-REC-02",
      "CA-REC-03",
      "CA-REC-04",
    ]);
    expect(body.pagination).toEqual({
      current_page: 1,
      total_pages: 3,
      page_size: 5,
      total_results: 14,
      next_cursor: expect.any(String),
    });
    expect(body.response_metadata.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("shapes each filing field by field as envelope A", async () => {
    const body = await getJson("/filings/recent-by-state?state=CA&industry=food %26 beverage");
    expect(body.ucc_liens).toEqual([
      {
        initial_financing_number: "CA-FOOD",
        initial_financing_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        jurisdiction_state: "CA",
        involved_parties: {
          debtor_parties: [
            {
              name: "Sunrise Bakery Inc",
              debtor_industry: "Food & Beverage",
              address: { street1: "1 Main St", city: "Springfield", state: "CA", zip_code: "94107" },
            },
            // Without an industry: the party's kind, as envelope B's category says.
            {
              name: "Jane Doe",
              debtor_industry: "Individual",
              address: { street1: "1 Main St", city: "Springfield", state: "CA", zip_code: "94107" },
            },
            {
              name: "Doe Holdings LLC",
              debtor_industry: "Organization",
              address: { street1: "1 Main St", city: "Springfield", state: "CA", zip_code: "94107" },
            },
          ],
          secured_parties: [
            {
              name: "First Test Bank, N.A.",
              address: { street1: "1 Main St", city: "Springfield", state: "CA", zip_code: "94107" },
            },
          ],
        },
      },
    ]);
  });

  it("walks every recent filing once across pages, and none older than 90 days", async () => {
    const all = await allPagesA("/filings/recent-by-state?state=ca", "ucc_liens");
    const numbers = all.map((l) => l.initial_financing_number);
    expect(numbers).toHaveLength(14);
    expect(new Set(numbers).size).toBe(14);
    expect(numbers).toContain("CA-EDGE-IN");
    expect(numbers).not.toContain("CA-EDGE-OUT");
    expect(numbers).not.toContain("CA-OLD");
    expect(numbers).not.toContain("NV-REC");
  });

  it("answers a page past the end with an empty list and truthful pagination", async () => {
    const body = await getJson("/filings/recent-by-state?state=CA&page=9");
    expect(body.ucc_liens).toEqual([]);
    expect(body.pagination).toMatchObject({ current_page: 9, total_pages: 3 });
  });

  it("filters by a comma-separated industry list, case-insensitively", async () => {
    const body = await getJson("/filings/recent-by-state?state=CA&industry=MANUFACTURING,%20Food%20%26%20Beverage");
    expect(body.pagination.total_results).toBe(14);
    const food = await getJson("/filings/recent-by-state?state=CA&industry=Real%20Estate");
    expect(food.pagination.total_results).toBe(0);
  });

  it("counts exactly from the facet totals, with one industry, several, or none", async () => {
    for (const query of [
      "",
      "&industry=manufacturing",
      "&industry=Food%20%26%20Beverage",
      "&industry=Manufacturing,Real%20Estate",
    ]) {
      const path = `/filings/recent-by-state?state=CA${query}` as const;
      const first = await getJson(path);
      const all = await allPagesA(path, "ucc_liens");
      expect(first.pagination.total_results, query).toBe(all.length);
    }
  });

  it("rejects an unknown industry with a 400 naming the parameter and the allowed values", async () => {
    const body = await getJson("/filings/recent-by-state?state=CA&industry=Widgets", 400);
    expect(body.error.code).toBe("invalid_parameter");
    expect(body.error.details?.[0]?.parameter).toBe("industry");
    expect(body.error.details?.[0]?.message).toContain("Construction & Trades");
  });

  it("rejects a missing or unknown state, and a bad page, naming each", async () => {
    const body = await getJson("/filings/recent-by-state?page=0", 400);
    expect(body.error.details?.map((d) => d.parameter).sort()).toEqual(["page", "state"]);
    const unknown = await getJson("/filings/recent-by-state?state=ZZ", 400);
    expect(unknown.error.details?.[0]?.parameter).toBe("state");
  });

  it("requires an API key", async () => {
    const res = await get("/filings/recent-by-state?state=CA", null);
    expect(res.status).toBe(401);
    expect((await res.json<ErrorBody>()).error.code).toBe("missing_api_key");
  });
});

describe("industry counts over filings with several industries", () => {
  // Debtors' industry sets of up to five of the listed industries, with
  // other labels and debtors without one, some filed before the window.
  const sets: string[][] = Array.from({ length: 40 }, (_, i) =>
    Array.from({ length: i % 6 }, (_, k) => INDUSTRIES[(i * 7 + k * 4) % INDUSTRIES.length]!),
  );
  const records = sets.map((labels, i) =>
    filing({
      state: "OR",
      number: `OR-IND-${String(i).padStart(2, "0")}`,
      filedAt: daysAgo(i % 9 === 8 ? 95 : 1 + i),
      debtors: [
        ...labels.map((label, k) => party(`Industry ${i} ${k} LLC`, { label })),
        party(`Other ${i} Inc`, { label: i % 3 === 0 ? "Space Mining" : null }),
      ],
    }),
  );
  const recent = records.filter((_, i) => i % 9 !== 8);

  beforeAll(async () => {
    await load(records);
  });

  // Every number of industries asked for, from one (inclusion-exclusion) to
  // all fifteen (every filing minus those that avoid them).
  const queries: string[][] = Array.from({ length: INDUSTRIES.length }, (_, n) =>
    Array.from({ length: n + 1 }, (_, k): string => INDUSTRIES[(n * 5 + k * 2) % INDUSTRIES.length]!),
  );

  it.each(queries.map((q) => [q.length, q] as const))(
    "counts exactly with %i industries asked for, as the filings listed",
    async (_, asked) => {
      const path = `/filings/recent-by-state?state=OR&industry=${encodeURIComponent(asked.join(","))}` as const;
      const expected = recent.filter((r) => r.debtors.some((d) => d.label != null && asked.includes(d.label)));
      const first = await getJson(path);
      expect(first.pagination.total_results).toBe(expected.length);
      const all = await allPagesA(path, "ucc_liens");
      expect(all.map((l) => l.initial_financing_number).sort()).toEqual(expected.map((r) => r.number).sort());
    },
  );
});
