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
import { dense } from "./dense.ts";
import { LOOKUPS } from "./endpoints.ts";
import { get, load, registerKeys } from "./helpers.ts";

/**
 * Rows read by page 1 of any request below, at any data size, per shard
 * read: a cross-state request reads every shard, each within the bound
 * (docs/sharding.md).
 */
const BOUND = 250;

/** Every endpoint's requests over the dense data (test/endpoints.ts). */
const REQUESTS = LOOKUPS.flatMap((e) => e.dense);

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
    // Per shard read (", 4 shards" in Server-Timing when more than one).
    const shards = Number(/(\d+) shards/.exec(timing)?.[1] ?? 1);
    out.set(path, Number(rows) / shards);
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

/** Page 1 of known addresses, per shard read: about a page of rows and a few per debtor found (issue 13). */
const ADDRESS_BOUND = 100;
const ADDRESSES = REQUESTS.filter((path) => path.startsWith("/debtors/addresses"));

describe("rows read per request", () => {
  it.each(ADDRESSES)("%s reads at most 100 rows per shard at 150 and at 1,500 filings", (path) => {
    expect(small.get(path)).toBeLessThanOrEqual(ADDRESS_BOUND);
    expect(large.get(path)).toBeLessThanOrEqual(ADDRESS_BOUND);
  });

  it("has a debtor with hundreds of known addresses among them", async () => {
    const res = await get("/debtors/addresses?name=Busy%20Borrower&run=count");
    const body = (await res.json()) as { pagination: { total_results: number } };
    expect(body.pagination.total_results).toBe(500);
  });

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
