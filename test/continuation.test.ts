/**
 * Every paged list can be walked by continuation: each page hands out a
 * `next_cursor` (absent on the last), and following it returns exactly the
 * items that walking `page` by `page` returns, in order, on one database
 * and on four shards (the suite runs both). A cursor is bound to its list:
 * another list, other filters, an edited cursor, or `page` beside it is a
 * 400 naming the parameter. (Rows read by pages reached this way:
 * test/bounded-work.test.ts.)
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { FilingRecord } from "../src/db/records.ts";
import { MAX_FILING_NUMBER_LENGTH } from "../src/domain/limits.ts";
import { encodeCursor, MAX_CURSOR_LENGTH } from "../src/http/cursor.ts";
import type { ErrorBody } from "./bodies.ts";
import { daysAgo, filing, get, load, party, registerKeys } from "./helpers.ts";

/** States over every shard of the four-shard layout (wrangler.toml): DB_2, DB_3, DB_4 and DB. */
const STATES = ["CA", "NY", "TX", "FL", "PA", "OH", "NV", "WA", "AZ", "CO", "OR", "UT"];
const SAME_SECOND = daysAgo(3);

function fixtures(): FilingRecord[] {
  const records: FilingRecord[] = [];
  // 36 filings at one ZIP, half in CA and half over the twelve states, a lender on each,
  // some with a second lender of the name, a co-borrower each, a termination on every
  // third, two debtors at the ZIP on some (listed once), and a rarer industry.
  for (let i = 0; i < 36; i++) {
    const state = i % 2 === 0 ? "CA" : STATES[(i >> 1) % STATES.length]!;
    records.push(
      filing({
        state,
        number: `CU${String(i).padStart(3, "0")}`,
        filedAt: daysAgo(5 + i / 4),
        debtors: [
          party("Cursor Walk LLC", { zip: "60601", label: i % 5 === 0 ? "Equipment" : "Manufacturing", state }),
          party(`Co Borrower ${i % 14}`, { zip: i % 4 === 0 ? "60601" : "60602", street1: `${i % 3} Side St` }),
        ],
        securedParties:
          i % 6 === 0
            ? [party("Walker Bank NA"), party("Walker Bank Equipment Finance")]
            : [party(i % 2 ? "Walker Bank NA" : "Walker Bank Equipment Finance")],
        amendments:
          i % 3 === 0
            ? [{ number: `CU${i}-T`, filedAt: daysAgo(1 + i / 10), kind: "termination", description: "Termination" }]
            : [],
      }),
    );
  }
  // Ties: filings of one second, in one state and across shards, one number in many states.
  for (const [i, state] of STATES.entries()) {
    records.push(
      filing({
        state,
        number: i < 11 ? "TIE-1" : `TIE-${i}`,
        filedAt: SAME_SECOND,
        debtors: [party("Tied Second Inc", { zip: "60601", state })],
        securedParties: [party("Walker Bank NA")],
      }),
    );
  }
  // Seven filings of one second in one state: a page ends inside them.
  for (let t = 0; t < 7; t++) {
    records.push(
      filing({
        number: `SEC-${t}`,
        filedAt: SAME_SECOND,
        debtors: [party("Tied Second Inc", { zip: "60601" })],
        securedParties: [party("Walker Bank NA")],
        amendments: [{ number: `SEC-${t}-T`, filedAt: daysAgo(1), kind: "termination", description: "Termination" }],
      }),
    );
  }
  // A person filed under several spellings at shared addresses, in states of several shards,
  // far apart in time: an address's rows under other spellings lie deep in the list.
  const spellings = ["Smith, Jonah A", "Smith, Jonah", "Smith, J A", "Smith, J"];
  for (let j = 0; j < 40; j++) {
    records.push(
      filing({
        state: ["CA", "NY", "TX", "OH"][j % 4]!,
        number: `JS${String(j).padStart(3, "0")}`,
        filedAt: daysAgo(2 + ((j * 37) % 400)),
        debtors: [party(spellings[j % 4]!, { type: "Individual", street1: `${j % 9} Harbor Way`, zip: "60603" })],
      }),
    );
  }
  // Two spellings at seven addresses, one long before the other: below a page, an address's
  // older row under the other spelling is one of an address shown already.
  for (let k = 0; k < 7; k++) {
    for (const [n, spelling] of ["Smith, Ada", "Smith, A"].entries()) {
      records.push(
        filing({
          number: `AS${n}${k}`,
          filedAt: daysAgo(10 + k + 90 * n),
          debtors: [party(spelling, { type: "Individual", street1: `${k} Ada Ct`, zip: "60605" })],
        }),
      );
    }
  }
  // One organization at 23 addresses in one state: a single name.
  for (let k = 0; k < 23; k++) {
    records.push(
      filing({
        state: "CA",
        number: `OR${String(k).padStart(3, "0")}`,
        filedAt: daysAgo(10 + k),
        debtors: [party("Cursor Walk LLC", { street1: `${k} Market St`, zip: "60604" })],
      }),
    );
  }
  // Names like one another, for similar-name pages.
  const similar = ["Cursor Walk Co", "Cursor Walks Inc", "Cursr Walk LLC", "Walk Cursor LLC", "Kursor Walk Inc"];
  for (const [k, name] of [...similar, "Cursor Walking Co", "Cursor Walk Ltd"].entries()) {
    for (const state of STATES.slice(0, 3)) {
      records.push(filing({ state, number: `SIM${k}${state}`, filedAt: daysAgo(40 + k), debtors: [party(name)] }));
    }
  }
  return records;
}

/** Every paged list over the fixtures, in each envelope and with filters. */
const LISTS = [
  "/filings/recent-by-state?state=CA",
  "/filings/recent-by-state?state=CA&industry=Manufacturing,Equipment",
  "/filings/recent-by-postal-code?postal_code=60601",
  "/filings/recent-by-postal-code?postal_code=60601&industry=Manufacturing",
  "/filings/recent-by-postal-code?postal_code=60601&envelope=b",
  "/secureds/recent-by-secured-party?name=walker%20bank&state=CA",
  "/secureds/recent-by-secured-party?name=walker%20bank&state=CA&envelope=a",
  "/secureds/recent-by-secured-party?name=walker%20bank%20na&state=CA&borrower_type=Organization&envelope=a",
  "/filings/recently-terminated?state=CA",
  "/debtors/search?name=Cursor%20Walk%20LLC&state=CA",
  "/debtors/search?name=J%20Smith&state=CA",
  "/debtors/addresses?name=Cursor%20Walk%20LLC",
  "/debtors/addresses?name=J%20Smith",
  "/debtors/addresses?name=Jonah%20Smith",
  "/debtors/addresses?name=Ada%20Smith",
  "/debtors/associated?name=Cursor%20Walk%20LLC&state=CA",
  "/debtors/search-similar?name=Cursor%20Walk",
  "/debtors/search-similar?name=Cursor%20Walk&state=CA",
  "/filings?initial_financing_number=TIE-1",
];

interface Page {
  pagination?: { current_page: number; total_pages: number; next_cursor?: string };
  response_metadata: { page?: number; next_page?: boolean; next_cursor?: string };
  [list: string]: unknown;
}

let fresh = 0;
/** A page, past the edge cache (an unknown parameter is no part of the list a cursor names). */
async function pageOf(path: string): Promise<Page> {
  const res = await get(`${path}&fresh=${++fresh}`);
  const body = await res.text();
  expect(res.status, `${path}: ${body}`).toBe(200);
  return JSON.parse(body) as Page;
}

/** The page's list, whatever it is called. */
const itemsOf = (page: Page) => Object.values(page).find(Array.isArray) as unknown[];
const cursorOf = (page: Page) => page.pagination?.next_cursor ?? page.response_metadata.next_cursor;
const numberOf = (page: Page) => page.pagination?.current_page ?? page.response_metadata.page;
const hasNext = (page: Page) =>
  page.pagination ? page.pagination.current_page < page.pagination.total_pages : page.response_metadata.next_page;

/** Every item of `path`, page by page. */
async function walkByPage(path: string): Promise<unknown[][]> {
  const pages: unknown[][] = [];
  for (let n = 1; ; n++) {
    const page = await pageOf(`${path}&page=${n}`);
    pages.push(itemsOf(page));
    if (!hasNext(page)) return pages;
  }
}

/** Every item of `path`, by following each page's cursor; each page says its number. */
async function walkByCursor(path: string): Promise<unknown[][]> {
  const pages: unknown[][] = [];
  let page = await pageOf(path);
  for (let n = 1; ; n++) {
    expect(numberOf(page), path).toBe(n);
    pages.push(itemsOf(page));
    const cursor = cursorOf(page);
    expect(cursor !== undefined, `${path}: page ${n} has a next_cursor exactly when another page follows`).toBe(
      hasNext(page),
    );
    if (cursor === undefined) return pages;
    page = await pageOf(`${path}&cursor=${encodeURIComponent(cursor)}`);
  }
}

beforeAll(async () => {
  await registerKeys();
  await load(fixtures());
});

describe("walking a list by cursor", () => {
  it.each(LISTS)("%s: gives the pages a walk by page gives", async (path) => {
    const byPage = await walkByPage(path);
    expect(byPage.flat().length, "the fixtures fill more than a page").toBeGreaterThan(
      itemsOf(await pageOf(path)).length,
    );
    expect(await walkByCursor(path)).toEqual(byPage);
  });

  it("continues from a page asked by number", async () => {
    const path = LISTS[0]!;
    const [, second, third] = await walkByPage(path);
    const cursor = cursorOf(await pageOf(`${path}&page=2`))!;
    const next = await pageOf(`${path}&cursor=${encodeURIComponent(cursor)}`);
    expect(numberOf(next)).toBe(3);
    expect(itemsOf(next)).toEqual(third);
    expect(second).not.toEqual(third);
  });

  it("hands out no cursor for a list of one page", async () => {
    const page = await pageOf("/filings?initial_financing_number=CU000&state=CA");
    expect(itemsOf(page)).toHaveLength(1);
    expect(cursorOf(page)).toBeUndefined();
  });

  it("hands out cursors within the length it takes back, whatever the filing number", async () => {
    // The longest position: a filing number of 64 lone surrogates (JSON writes each as six characters).
    const after = {
      at: 2 ** 40,
      num: "\ud800".repeat(MAX_FILING_NUMBER_LENGTH),
      fid: Number.MAX_SAFE_INTEGER,
      shard: 5,
    };
    const cursor = encodeCursor("/filings/recent-by-postal-code?[]", { page: 1_000_000, after });
    expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
  });

  it("takes an empty cursor as none", async () => {
    expect(itemsOf(await pageOf(`${LISTS[0]}&cursor=`))).toEqual(itemsOf(await pageOf(LISTS[0]!)));
  });
});

describe("a cursor it does not hand out", () => {
  const path = "/filings/recent-by-state?state=CA";
  let cursor: string;
  beforeAll(async () => {
    cursor = cursorOf(await pageOf(path))!;
  });

  async function refusal(url: string) {
    const res = await get(url);
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("invalid_parameter");
    return body.error.details?.map((d) => d.parameter);
  }

  it("is refused beside page, naming both", async () => {
    expect(await refusal(`${path}&page=2&cursor=${cursor}`)).toEqual(["page", "cursor"]);
  });

  it.each([
    ["another list", `/filings/recently-terminated?state=CA`],
    ["the list in another state", `/filings/recent-by-state?state=NY`],
    ["the list with other filters", `/filings/recent-by-state?state=CA&industry=Manufacturing`],
    ["the list in the other envelope", `/filings/recent-by-postal-code?postal_code=60601&envelope=b`],
  ])("is refused by %s, naming cursor", async (_, other) => {
    const from = other.includes("postal_code")
      ? cursorOf(await pageOf("/filings/recent-by-postal-code?postal_code=60601"))!
      : cursor;
    expect(await refusal(`${other}&cursor=${from}`)).toEqual(["cursor"]);
  });

  it("is refused when edited or cut, naming cursor", async () => {
    const [payload, seal] = cursor.split(".") as [string, string];
    const edited = `${payload.slice(0, -2)}${payload.at(-2) === "A" ? "B" : "A"}${payload.at(-1)}.${seal}`;
    expect(await refusal(`${path}&cursor=${edited}`)).toEqual(["cursor"]);
    expect(await refusal(`${path}&cursor=${payload}`)).toEqual(["cursor"]);
    expect(await refusal(`${path}&cursor=not%20a%20cursor`)).toEqual(["cursor"]);
  });
});
