/**
 * Counts come from facet totals, not from the rows listed: they must still
 * agree exactly with what paging through the list yields, for every counted
 * endpoint and filter, including filings that several filter values match.
 */
import { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import { INDUSTRIES as INDUSTRY_VALUES } from "../src/domain/industries.ts";
import { counted } from "./bodies.ts";
import { dense } from "./dense.ts";
import { allPagesA, daysAgo, filing, getJson, load, party, registerKeys } from "./helpers.ts";

/** A filing or termination in a list: its number. */
const listed = z.object({ initial_financing_number: z.string() });
/** A known address, every part of it. */
const knownAddress = z.strictObject({
  street1: z.string().nullable(),
  street2: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  zip_code: z.string().nullable(),
});

const enc = encodeURIComponent;
/** Fifteen industries: more index ranges than D1 merges in one compound SELECT. */
const ALL_INDUSTRIES = INDUSTRY_VALUES.join(",");
const COUNTED = [
  "/filings/recent-by-state?state=CA",
  `/filings/recent-by-state?state=CA&industry=${enc(ALL_INDUSTRIES)}`,
  `/filings/recent-by-postal-code?postal_code=94107&industry=${enc(ALL_INDUSTRIES)}`,
  "/filings/recent-by-state?state=CA&industry=Manufacturing",
  `/filings/recent-by-state?state=CA&industry=${enc("Manufacturing,Equipment,Energy & Utilities")}`,
  `/filings/recent-by-state?state=CA&industry=${enc("Energy & Utilities")}`,
  "/filings/recent-by-postal-code?postal_code=94107",
  `/filings/recent-by-postal-code?postal_code=94110&industry=${enc("Manufacturing,Retail & E-commerce")}`,
  "/secureds/recent-by-secured-party?name=wells%20fargo&state=CA&envelope=a",
  "/secureds/recent-by-secured-party?name=wells%20fargo%20equipment&state=CA&borrower_type=Individual&envelope=a",
  "/secureds/recent-by-secured-party?name=wells&state=CA&borrower_type=Organization&envelope=a",
  "/secureds/recent-by-secured-party?name=wells%20fargo&state=CA&borrower_type=Individual&envelope=a",
  "/filings/recently-terminated?state=CA",
  "/debtors/search?name=Busy%20Borrower&state=CA",
  "/debtors/search?name=Owner%203&state=CA",
  "/debtors/search?name=3,%20O&state=CA",
];

beforeAll(async () => {
  await registerKeys();
  await load(Array.from({ length: 120 }, (_, i) => dense(i)));
  // Filings with two (or three) lenders that one lender search finds: each counts once.
  await load(
    Array.from({ length: 3 }, (_, i) =>
      filing({
        number: `TWO-${i}`,
        filedAt: daysAgo(2 + i),
        debtors: [party(i === 1 ? "Pat Two" : "Two Lenders Co", { type: i === 1 ? "Individual" : "Organization" })],
        securedParties: [
          party("Wells Fargo Equipment Finance"),
          party("Wells Fargo Bank, N.A."),
          ...(i === 0 ? [party("Wells Fargo Bank NA")] : []),
        ],
      }),
    ),
  );
});

describe("counts", () => {
  it.each(COUNTED)("%s: total_results equals the filings listed across all pages, each once", async (path) => {
    const list = path.includes("terminated") ? "terminated_filings" : "ucc_liens";
    const first = counted.parse(await getJson(path));
    const all = await allPagesA(path, list);
    const numbers = all.map((l) => listed.parse(l).initial_financing_number);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(first.pagination.total_results).toBe(all.length);
    expect(all.length).toBeGreaterThan(0);
  });

  it.each(["/debtors/addresses?name=Busy%20Borrower", "/debtors/addresses?name=Owner%203"])(
    "%s: total_results equals the distinct addresses listed across all pages",
    async (path) => {
      const first = counted.parse(await getJson(path));
      const all = await allPagesA(path, "addresses");
      const places = all.map((a) => JSON.stringify(knownAddress.parse(a)));
      expect(new Set(places).size).toBe(places.length);
      expect(first.pagination.total_results).toBe(all.length);
      expect(all.length).toBeGreaterThan(0);
    },
  );
});
