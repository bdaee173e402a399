/**
 * Work per request follows the page, not the data: for every endpoint and
 * filter combination, D1 rows read (from Server-Timing) stay under one fixed
 * bound, and do not grow when the data set grows tenfold.
 *
 * The data is deliberately dense: every filing is recent, in one state, at
 * two ZIP codes, with one busy debtor and one busy lender, so any query that
 * walked or counted its matches one by one would read thousands of rows.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { FilingRecord } from "../src/db/records.ts";
import { daysAgo, filing, get, load, party, registerKeys } from "./helpers.ts";

const INDUSTRIES = ["Manufacturing", "Retail & E-commerce", "Equipment"];
/** Rows read by page 1 of any request below, at any data size. */
const BOUND = 250;

/** Filing `i` of the dense data set. */
function dense(i: number): FilingRecord {
  const zip = i % 2 === 0 ? "94107" : "94110";
  const busy = i % 3 === 0;
  const debtors = [
    party(busy ? "Busy Borrower LLC" : `Borrower ${i} Inc`, {
      zip,
      label: INDUSTRIES[i % INDUSTRIES.length]!,
      street1: `${i % 4} Market St`,
    }),
  ];
  if (i % 5 === 0) debtors.push(party(`Owner ${i % 7}`, { type: "Individual", zip, street1: "9 Home Ln" }));
  // A rare industry: one filing in fifty.
  if (i % 50 === 0) debtors[0]!.label = "Energy & Utilities";
  const terminated = i % 4 === 0;
  return filing({
    number: `D${String(i).padStart(7, "0")}`,
    filedAt: daysAgo(1 + (i % 80) + i / 100_000),
    debtors,
    securedParties: [party(i % 2 === 0 ? "Wells Fargo Bank, N.A." : "Wells Fargo Equipment Finance")],
    amendments: terminated
      ? [{ number: `D${i}-T`, filedAt: daysAgo(i % 60), kind: "termination", description: "Termination" }]
      : [],
  });
}

const enc = encodeURIComponent;
const REQUESTS = [
  "/filings/recent-by-state?state=CA",
  "/filings/recent-by-state?state=CA&industry=Manufacturing",
  `/filings/recent-by-state?state=CA&industry=${enc("Manufacturing,Equipment")}`,
  `/filings/recent-by-state?state=CA&industry=${enc(INDUSTRIES.join(","))}`,
  `/filings/recent-by-state?state=CA&industry=${enc("Energy & Utilities")}`,
  "/filings/recent-by-state?state=CA&industry=Agriculture%20%26%20Farming",
  "/filings/recent-by-postal-code?postal_code=94107",
  "/filings/recent-by-postal-code?postal_code=94107-1234&industry=Equipment",
  `/filings/recent-by-postal-code?postal_code=94110&industry=${enc("Manufacturing,Retail & E-commerce")}&envelope=b`,
  "/secureds/recent-by-secured-party?name=wells%20fargo&state=CA",
  "/secureds/recent-by-secured-party?name=wells%20fargo%20bank&state=CA&envelope=a",
  "/secureds/recent-by-secured-party?name=wells%20fargo&state=CA&borrower_type=Individual&envelope=a",
  "/secureds/recent-by-secured-party?name=wells&state=CA&borrower_type=Organization",
  "/filings/recently-terminated?state=CA",
  "/debtors/search?name=Busy%20Borrower&state=CA",
  "/debtors/addresses?name=Busy%20Borrower",
  "/debtors/associated?name=Busy%20Borrower&state=CA",
  "/debtors/search-similar?name=Busy%20Borower",
  "/filings?initial_financing_number=D0000042",
];

let run = 0;
/** Rows read by each request, bypassing the edge cache with a fresh parameter. */
async function rowsRead(): Promise<Map<string, number>> {
  run += 1;
  const out = new Map<string, number>();
  for (const path of REQUESTS) {
    const res = await get(`${path}&run=${run}`);
    expect(res.status, path).toBe(200);
    const timing = res.headers.get("server-timing") ?? "";
    const rows = /(\d+) rows read/.exec(timing)?.[1];
    expect(rows, `${path}: ${timing}`).toBeDefined();
    out.set(path, Number(rows));
  }
  return out;
}

let small: Map<string, number>;
let large: Map<string, number>;

beforeAll(async () => {
  await registerKeys();
  await load(Array.from({ length: 150 }, (_, i) => dense(i)));
  small = await rowsRead();
  await load(Array.from({ length: 1350 }, (_, i) => dense(150 + i)));
  large = await rowsRead();
}, 120_000);

describe("rows read per request", () => {
  it.each(REQUESTS)("%s stays under the bound at 150 and at 1,500 filings", (path) => {
    expect(small.get(path)).toBeLessThanOrEqual(BOUND);
    expect(large.get(path)).toBeLessThanOrEqual(BOUND);
  });

  it.each(REQUESTS)("%s reads no more at ten times the data than a page's worth more", (path) => {
    // The facet and co-debtor entries a query meets can grow a little with
    // the data (more days, more owners), never in step with the filings.
    expect(large.get(path)! - small.get(path)!).toBeLessThanOrEqual(30);
  });
});
