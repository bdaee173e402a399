/**
 * GET /filings/lapsing (live filings by lapse date in a window) and GET
 * /states (how current each state's data is).
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { refreshQueued, upsertFilings } from "../src/db/load.ts";
import type { FilingRecord } from "../src/db/records.ts";
import { shardOf } from "../src/db/shards.ts";
import { INDUSTRIES } from "../src/domain/industries.ts";
import { findsSecuredParty } from "../src/domain/names.ts";
import { lienLine } from "../src/feed/export.ts";
import { importSharded } from "../src/feed/shardedImport.ts";
import { encodeCursor } from "../src/http/cursor.ts";
import { fresh, stream } from "./feeds.ts";
import {
  clearAllShards,
  d1Of,
  filing,
  get,
  getJson,
  loadDelta,
  party,
  registerKeys,
  shardDatabases,
} from "./helpers.ts";

const DAY = 86_400_000;
const day = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

/**
 * A lapse list of `state` by the industries `asked`, lapsing from tomorrow
 * through day `last`: its count (envelope A; B has none) and the rows it
 * read (Server-Timing).
 */
async function byIndustries(state: string, asked: readonly string[], last: number, envelope: "a" | "b" = "a") {
  const res = await get(
    `/filings/lapsing?state=${state}&from=${day(1)}&to=${day(last)}&industry=${encodeURIComponent(asked.join(","))}&envelope=${envelope}`,
  );
  const body = (await res.json()) as { pagination?: { total_results: number } };
  return {
    total: body.pagination?.total_results,
    rows: Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]),
  };
}

/** A filing in `state` whose office lapse date is `days` from today. */
function lapsing(number: string, days: number, more: Partial<FilingRecord> = {}): FilingRecord {
  return filing({
    number,
    officeLapseDate: day(days),
    filedAt: new Date(Date.now() - 900 * DAY).toISOString().replace(/\.\d{3}Z$/, "Z"),
    ...more,
  });
}

const RECORDS: FilingRecord[] = [
  lapsing("LAP-0", 0),
  lapsing("LAP-10", 10, { debtors: [party("Lumber Yard LLC", { label: "Construction & Trades" })] }),
  lapsing("LAP-10B", 10),
  lapsing("LAP-100", 100, { securedParties: [party("Wells Fargo Bank, N.A.")] }),
  lapsing("LAP-180", 180),
  lapsing("LAP-181", 181),
  lapsing("LAP-PAST", -5),
  // Terminated: never listed, whatever its lapse date.
  lapsing("LAP-TERM", 20, {
    amendments: [
      {
        number: "LAP-TERM-T",
        filedAt: new Date(Date.now() - 30 * DAY).toISOString().replace(/\.\d{3}Z$/, "Z"),
        kind: "termination",
        description: "Termination",
      },
    ],
  }),
  lapsing("LAP-TX", 30, { state: "TX" }),
];

const numbers = (body: { ucc_liens: { initial_financing_number: string }[] }) =>
  body.ucc_liens.map((l) => l.initial_financing_number);

beforeAll(async () => {
  await clearAllShards();
  await registerKeys();
  await loadDelta(RECORDS);
});

describe("GET /filings/lapsing", () => {
  it("lists today through 180 days ahead by default, both ends included, soonest first, then by number", async () => {
    const body = await getJson("/filings/lapsing?state=CA");
    expect(numbers(body)).toEqual(["LAP-0", "LAP-10", "LAP-10B", "LAP-100", "LAP-180"]);
    expect(body.ucc_liens.map((l) => l.estimated_lien_lapse_date)).toEqual([
      day(0),
      day(10),
      day(10),
      day(100),
      day(180),
    ]);
    expect(body.response_metadata.next_page).toBe(false);
  });

  it("takes a window of past and future days, and refuses one that ends before it starts", async () => {
    expect(numbers(await getJson(`/filings/lapsing?state=CA&from=${day(-10)}&to=${day(0)}`))).toEqual([
      "LAP-PAST",
      "LAP-0",
    ]);
    expect(numbers(await getJson(`/filings/lapsing?state=CA&from=${day(11)}&to=${day(99)}`))).toEqual([]);
    expect(numbers(await getJson(`/filings/lapsing?state=CA&from=${day(181)}`))).toEqual(["LAP-181"]);
    const refused = await getJson(`/filings/lapsing?state=CA&from=${day(10)}&to=${day(9)}`, 400);
    expect(refused.error.details?.map((d) => d.parameter)).toEqual(["to"]);
    const bad = await getJson("/filings/lapsing?state=CA&from=2026-02-30", 400);
    expect(bad.error.details?.map((d) => d.parameter)).toEqual(["from"]);
    // February 29 only in leap years: every fourth, but not 2100 (a century), yet 2000.
    for (const [from, status] of [
      ["2028-02-29", 200],
      ["2027-02-29", 400],
      ["2100-02-29", 400],
      ["2000-02-29", 200],
      ["2027-04-31", 400],
      ["2027-13-01", 400],
    ] as const) {
      await getJson(`/filings/lapsing?state=CA&from=${from}&to=2100-12-31`, status);
    }
    // The last day there is: its default window stops there, not in year 10000.
    expect(numbers(await getJson("/filings/lapsing?state=CA&from=9999-12-31"))).toEqual([]);
    // A cursor made by hand whose window is not of days: refused as a cursor, not a database failure.
    const crafted = encodeCursor('/filings/lapsing?[["envelope","b"],["state","CA"]]', {
      page: 2,
      after: { at: 0, num: "x", w: ["aaa", "bbb"] },
    });
    const forged = await getJson(`/filings/lapsing?state=CA&cursor=${encodeURIComponent(crafted)}`, 400);
    expect(forged.error.details?.map((d) => d.parameter)).toEqual(["cursor"]);
    const reversed = encodeCursor('/filings/lapsing?[["envelope","b"],["state","CA"]]', {
      page: 2,
      after: { at: 0, num: "x", w: [day(10), day(9)] },
    });
    const backwards = await getJson(`/filings/lapsing?state=CA&cursor=${encodeURIComponent(reversed)}`, 400);
    expect(backwards.error.details?.map((d) => d.parameter)).toEqual(["cursor"]);
    // A malformed from is not compared with to, so it is never written back into to's message.
    const hostile = await getJson(
      `/filings/lapsing?state=CA&from=${encodeURIComponent("9' OR 1=1 --")}&to=${day(9)}`,
      400,
    );
    expect(hostile.error.details?.map((d) => d.parameter)).toEqual(["from"]);
    expect(JSON.stringify(hostile)).not.toContain("OR 1=1");
  });

  it("filters by debtor industry and by secured party, and counts in envelope A", async () => {
    expect(numbers(await getJson("/filings/lapsing?state=CA&industry=Construction%20%26%20Trades"))).toEqual([
      "LAP-10",
    ]);
    expect(numbers(await getJson("/filings/lapsing?state=CA&secured_party=wells%20fargo"))).toEqual(["LAP-100"]);
    expect(numbers(await getJson("/filings/lapsing?state=CA&secured_party=wells%20far"))).toEqual([]);
    const a = await getJson("/filings/lapsing?state=CA&envelope=a");
    expect(a.pagination).toEqual({ current_page: 1, total_pages: 1, page_size: 5, total_results: 5 });
    const industry = await getJson("/filings/lapsing?state=CA&industry=Manufacturing&envelope=a");
    // The default filing's debtor is in Manufacturing: every listed filing but the lumber yard's.
    expect(industry.pagination.total_results).toBe(4);
    const lender = await getJson("/filings/lapsing?state=CA&secured_party=first%20test&envelope=a");
    expect(lender.pagination.total_results).toBe(4);
  });

  it("pages in both envelopes, every filing once", async () => {
    const wide = `state=CA&from=${day(-30)}&to=${day(400)}`;
    const pageA2 = await getJson(`/filings/lapsing?${wide}&envelope=a&page=2`);
    expect(pageA2.pagination).toMatchObject({ current_page: 2, total_pages: 2, total_results: 7 });
    expect(numbers(pageA2)).toEqual(["LAP-180", "LAP-181"]);
    const pageB1 = await getJson(`/filings/lapsing?${wide}`);
    expect(pageB1.response_metadata.next_page).toBe(false);
    expect(numbers(pageB1)).toHaveLength(7);
  });

  it("stays within D1's 100 bound parameters and 100 expression levels with every industry, a lender, a deep page and a cursor", async () => {
    // Twelve of one lender's filings in OR, so each envelope has a page after the first.
    await loadDelta(Array.from({ length: 12 }, (_, i) => lapsing(`LAP-OR-${i}`, 20 + i, { state: "OR" })));
    // Every industry (each entry checked), and three (the lender's filings under each: lenderWalk).
    const three = ["Real Estate", "Equipment", "Manufacturing"];
    for (const [asked, envelope] of [[...INDUSTRIES], three].flatMap((i) => [
      [encodeURIComponent(i.join(",")), "a"],
      [encodeURIComponent(i.join(",")), "b"],
    ])) {
      const list = `/filings/lapsing?state=OR&from=${day(-30)}&to=${day(400)}&industry=${asked}&secured_party=first%20test%20bank&envelope=${envelope}`;
      const first = (await (await get(list)).json()) as {
        pagination?: { next_cursor?: string };
        response_metadata: { next_cursor?: string };
      };
      const cursor = first.pagination?.next_cursor ?? first.response_metadata.next_cursor;
      expect(cursor, envelope).toBeDefined();
      const second = await getJson(`${list}&cursor=${cursor}` as "/filings/lapsing");
      expect(numbers(second)[0], envelope).toBe(envelope === "a" ? "LAP-OR-5" : "LAP-OR-10");
      await getJson(`${list}&page=3` as "/filings/lapsing");
    }
  });
});

describe("GET /states", () => {
  it("lists every state held with its filings, live filings, last load and data through", async () => {
    const body = await getJson("/states");
    const ca = body.states.find((s) => s.state === "CA");
    const tx = body.states.find((s) => s.state === "TX");
    // Every state loaded, in order (OR: the parameter-limit test's).
    expect(body.states.map((s) => s.state)).toEqual(["CA", "OR", "TX"]);
    // Eight CA filings: the terminated one, and the one that lapsed five days ago, are not live; the one
    // whose lapse date is today stands through it.
    expect(ca).toMatchObject({ filings: 8, active_filings: 6 });
    expect(tx).toMatchObject({ filings: 1, active_filings: 1 });
    expect(ca?.last_loaded_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // No office as-of date in these loads: the newest filing date.
    expect(ca?.data_through).toBe(RECORDS[0]!.filedAt.slice(0, 10));
  });

  it("says when a state's backfill began and completed: its first load through the importer, announced by no change", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const first = [filing({ state: "VT", number: "VT-BACKFILL-1" }), filing({ state: "VT", number: "VT-BACKFILL-2" })];
    const text = `${first.map((r) => JSON.stringify(lienLine(r, today))).join("\n")}\n`;
    await importSharded(shardDatabases, "vt.ndjson", stream(text));
    const vt = (await getJson("/states?backfill=1")).states.find((s) => s.state === "VT");
    expect(vt?.backfill_began_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(vt?.backfilled_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // States loaded before backfills were recorded (here, by the fixtures' own writer) say none.
    const ca = (await getJson("/states?backfill=1")).states.find((s) => s.state === "CA");
    expect(ca).toMatchObject({ backfill_began_at: null, backfilled_at: null });
    expect((await getJson("/filings/changes?state=VT")).changes).toEqual([]);
  });

  it("gives a single-state answer that state's own last load, not its shard's newest", async () => {
    // California's last load ten seconds earlier (load times count whole seconds): New York's next differs, without waiting.
    await d1Of("CA").prepare("update state_loads set last_loaded_at = last_loaded_at - 10 where state = 'CA'").run();
    const before = (await getJson("/filings/lapsing?state=CA")).response_metadata.data_source_last_updated;
    await loadDelta([lapsing("LAP-NY", 30, { state: "NY" })]);
    const after = (await getJson(`/filings/lapsing?state=CA&from=${day(0)}`)).response_metadata
      .data_source_last_updated;
    expect(after).toBe(before);
    const ny = (await getJson("/states")).states.find((s) => s.state === "NY");
    expect(ny?.last_loaded_at).not.toBe(before);
  });

  it("reads two rows per state held (its summary and its live total), however many industry sets its filings have", async () => {
    // Forty filings in WY, each with its own pair of industries: forty-odd facets of the state.
    const pairs = INDUSTRIES.flatMap((a, i) => INDUSTRIES.slice(i + 1).map((b) => [a, b] as const)).slice(0, 40);
    await loadDelta(
      pairs.map(([a, b], i) =>
        filing({
          state: "WY",
          number: `WY-SETS-${i}`,
          debtors: [party(`Sets ${i} LLC`, { label: a }), party(`Sets ${i} Holdings LLC`, { label: b })],
        }),
      ),
    );
    // A query the edge cache has not seen: the database's answer.
    const res = await get("/states?sets=1");
    const held = ((await res.json()) as { states: unknown[] }).states.length;
    const rows = Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    // CA, OR, TX, VT (the backfill's), NY and WY.
    expect(held).toBe(6);
    // Its summary row and the facet row of its live total: nothing counted, however many filings
    // (and a row more on a shard here and there, where a live total's seek passes a day).
    const timing = res.headers.get("server-timing") ?? "";
    const shards = Number(/(\d+) shards/.exec(timing)?.[1] ?? 1);
    expect(rows, timing).toBeLessThanOrEqual(2 * held + shards);
  });
});

describe("the count of a lapse list by industry", () => {
  it("counts a list filtered by industries exactly from the state's facets, reading the same rows however many it counts", async () => {
    // Sixty filings in WA lapsing on days 1 to 60, with one, two or three industries among their debtors.
    const sets = [
      ["Manufacturing"],
      ["Retail & E-commerce"],
      ["Manufacturing", "Retail & E-commerce"],
      ["Equipment", "Manufacturing", "Retail & E-commerce"],
    ];
    const records = Array.from({ length: 60 }, (_, i) =>
      lapsing(`LAP-WA-${i}`, 1 + i, {
        state: "WA",
        debtors: (sets[i % sets.length] ?? []).map((label, k) => party(`Lapse ${i} ${k} LLC`, { label })),
      }),
    );
    await loadDelta(records);
    const expected = (asked: string[], last: number) =>
      records.filter((_, i) => 1 + i <= last && (sets[i % sets.length] ?? []).some((l) => asked.includes(l))).length;
    const count = (asked: string[], last: number) => byIndustries("WA", asked, last);
    for (const asked of [
      ["Manufacturing"],
      ["Manufacturing", "Equipment"],
      ["Equipment", "Retail & E-commerce", "Manufacturing"],
    ]) {
      const few = await count(asked, 12);
      const all = await count(asked, 60);
      expect([few.total, all.total], asked.join()).toEqual([expected(asked, 12), expected(asked, 60)]);
      // A full page either way, its count from the state's lapse facet's sets and the one larger set's
      // tallies, not from the window's entries: two rows each for a window within one month and four for
      // one across months (src/queries/lapsing.ts). As the calendar falls, the longer window may cross a
      // month the shorter does not.
      expect(all.rows, asked.join()).toBeLessThanOrEqual(few.rows + 5 + 2 * 2);
    }
  });
});

describe("the count of a lapse list by lender", () => {
  /** Which lender names each of the filings below has, by its position, five kinds in turn. */
  const LENDERS = [
    ["Wells Fargo Bank"],
    ["Wells Fargo Equipment Finance"],
    ["Wells Fargo Bank", "Wells Fargo Equipment Finance"],
    ["Wells Fargo", "Wells Fargo Bank"],
    ["Wellspring Capital"],
  ];
  const lendersOf = (i: number) => LENDERS[i % LENDERS.length] ?? [];
  /** Eighty filings in NV lapsing on days 1 to 80, each with the lenders of its kind. */
  const records = Array.from({ length: 80 }, (_, i) =>
    lapsing(`LAP-NV-${i}`, 1 + i, { state: "NV", securedParties: lendersOf(i).map((name) => party(name)) }),
  );
  /** The same filings again under other numbers. */
  const copies = records.map((r) => ({ ...r, number: `${r.number}-COPY` }));
  /** A lapse list by lender from tomorrow through day `last`: its count and the rows it read. */
  async function byLender(name: string, last: number, more = "", first = 1) {
    const res = await get(
      `/filings/lapsing?state=NV&from=${day(first)}&to=${day(last)}&secured_party=${encodeURIComponent(name)}&envelope=a${more}`,
    );
    const body = (await res.json()) as { pagination: { total_results: number } };
    const rows = Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    return { total: body.pagination.total_results, rows };
  }
  /** How many of the filings `live` lapse on days `first` to `last` with a lender under `name`, each once. */
  const expected = (name: string, last: number, live: (i: number) => number | null, first = 1) =>
    records.filter((_, i) => {
      const lapse = live(i);
      return lapse !== null && lapse >= first && lapse <= last && lendersOf(i).some((l) => findsSecuredParty(name, l));
    }).length;
  const NAMES = ["wells fargo", "wells", "wells fargo bank", "wells fargo equipment finance", "wellspring"];

  it("counts each filing once from its lender names' facets, reading the same rows however many it counts", async () => {
    await loadDelta(records);
    const asked = [];
    for (const name of NAMES) {
      const few = await byLender(name, 12);
      const all = await byLender(name, 80);
      expect([few.total, all.total], name).toEqual([
        expected(name, 12, (i) => 1 + i),
        expected(name, 80, (i) => 1 + i),
      ]);
      asked.push(all);
    }
    // Windows of a day, within a month and across several, whole months or not, as the calendar falls.
    for (const [first, last] of [
      [1, 1],
      [10, 11],
      [3, 40],
      [1, 31],
      [25, 80],
    ] as const) {
      for (const name of ["wells fargo", "wells fargo bank"]) {
        const window = await byLender(name, last, "", first);
        expect(window.total, `${name} ${first} to ${last}`).toBe(expected(name, last, (i) => 1 + i, first));
      }
    }
    // Whole leading words: "wells" is not "wellspring".
    expect([(await byLender("wells", 80)).total, (await byLender("wellspring", 80)).total]).toEqual([64, 16]);
    // As many filings again, on the same days with the same lenders: twice the count, the same rows read for it
    // (a lender name's row of each month of the window, not a row a filing). A URL not asked before: the
    // answers above are cached for a minute (src/http/caching.ts).
    await loadDelta(copies);
    for (const [i, name] of NAMES.entries()) {
      const again = await byLender(name, 80, "&page=1");
      expect(again.total, name).toBe(2 * (asked[i]?.total ?? 0));
      // The page's own rows may differ by a row or two: its five filings are others now.
      expect(Math.abs(again.rows - (asked[i]?.rows ?? 0)), name).toBeLessThanOrEqual(2);
    }
  });

  it("counts a list by lender and industry from its months on every page, and a page past the end from the count alone", async () => {
    const list = `/filings/lapsing?state=NV&from=${day(1)}&to=${day(80)}&secured_party=wells&industry=Manufacturing&envelope=a`;
    const rowsOf = async (page: number) => {
      const res = await get(`${list}&page=${page}`);
      const body = (await res.json()) as { pagination: { total_results: number } };
      return {
        total: body.pagination.total_results,
        rows: Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]),
      };
    };
    const [one, two, past] = [await rowsOf(1), await rowsOf(2), await rowsOf(99)];
    // Every filing's debtor is in Manufacturing (the default party): the count is the lender's.
    expect(one.total).toBe(2 * 64);
    expect([two.total, past.total]).toEqual([one.total, one.total]);
    // Page 2 walks the entries before it again and checks the count in its page statement (52 and 106 rows);
    // a page past the end reads the count alone. Counting the lender's 128 entries read that many rows more.
    expect(two.rows).toBeLessThan(one.rows + 64);
    expect(past.rows).toBeLessThan(one.rows);
  });

  it("stays exact as filings are terminated and their lapse dates move", async () => {
    // Every tenth terminated, every tenth but one moved to day 200, out of the window.
    const changed = records.flatMap((r, i): FilingRecord[] => {
      if (i % 10 === 0) {
        const filedAt = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
        return [
          {
            ...r,
            amendments: [
              { number: `${r.number}-T`, filedAt, kind: "termination" as const, description: "Termination" },
            ],
          },
        ];
      }
      if (i % 10 === 1) return [{ ...r, officeLapseDate: day(200) }];
      return [];
    });
    await loadDelta(changed);
    const live = (i: number) => (i % 10 === 0 ? null : i % 10 === 1 ? 200 : 1 + i);
    // With the copies, unchanged.
    const both = (name: string, last: number) => expected(name, last, live) + expected(name, last, (i) => 1 + i);
    for (const name of NAMES) {
      // Windows not asked before: the answers above are cached for a minute (src/http/caching.ts).
      expect((await byLender(name, 81)).total, name).toBe(both(name, 81));
      expect((await byLender(name, 200)).total, name).toBe(both(name, 200));
    }
  });
});

describe("a lapse list by lender and industry", () => {
  /** Sixty filings in UT lapsing on days 1 to 60, one lender each: a Real Estate debtor on every third, Manufacturing on the others, and a second debtor in Retail on every fourth. */
  const records = Array.from({ length: 60 }, (_, i) =>
    lapsing(`LI-UT-${i}`, 1 + i, {
      state: "UT",
      debtors: [
        party(`Canyon Client ${i} LLC`, { label: i % 3 === 0 ? "Real Estate" : "Manufacturing" }),
        ...(i % 4 === 0 ? [party(`Canyon Partner ${i} LLC`, { label: "Retail & E-commerce" })] : []),
      ],
      securedParties: [party("Canyon Lending LLC")],
    }),
  );
  const list = (industries: string, envelope: string) =>
    `/filings/lapsing?state=UT&from=${day(1)}&to=${day(60)}&secured_party=canyon%20lending&industry=${encodeURIComponent(industries)}&envelope=${envelope}`;
  /** Both envelopes' answers (envelope A's count, envelope B's numbers) and the rows each read. */
  async function answers(industries: string) {
    const a = await get(fresh(list(industries, "a")));
    const b = await get(fresh(list(industries, "b")));
    const rowsOf = (res: Response) => Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    const [bodyA, bodyB] = (await Promise.all([a.json(), b.json()])) as [
      { pagination: { total_results: number }; ucc_liens: { initial_financing_number: string }[] },
      { ucc_liens: { initial_financing_number: string }[] },
    ];
    return {
      total: bodyA.pagination.total_results,
      numbers: [bodyA, bodyB].map((body) => body.ucc_liens.map((l) => l.initial_financing_number)),
      rows: [rowsOf(a), rowsOf(b)],
    };
  }

  it("counts by industries from the lender's months, lists by one or two from its filings by industry, and answers the same from rows stored before migration 0031", async () => {
    await loadDelta(records);
    const asked = [
      "Real Estate",
      "Retail & E-commerce,Real Estate",
      "Agriculture & Farming",
      "Retail & E-commerce,Manufacturing,Real Estate",
    ];
    const expected = [
      records.filter((_, i) => i % 3 === 0).length,
      records.filter((_, i) => i % 3 === 0 || i % 4 === 0).length,
      0,
      records.length,
    ];
    const current = [];
    for (const industries of asked) current.push(await answers(industries));
    expect(current.map((a) => a.total)).toEqual(expected);
    // The count reads the lender's months under the industries and their pairs (migration 0033), and by three
    // the lender's filings with three industries or more (none here), not its 60 entries in the window (which
    // read 96 rows in all by three).
    // A page by one industry or two reads the lender's filings under them (migration 0035): Agriculture, which
    // none of them holds, read 81 rows when its page checked each of the 60 entries.
    for (const [i, answer] of current.entries()) expect(answer.rows[0], asked[i]).toBeLessThan(60);
    // As before 0031 (or until db:rekey): no industries on the rows. The lender's filings by industry take
    // them from the filing's debtors (the trigger, as 0035 did), so pages by up to three read the same rows.
    const d1 = d1Of("UT");
    await d1.prepare("update secured_parties set debtor_industries = null where filing_number like 'LI-UT-%'").run();
    for (const [i, industries] of asked.entries()) {
      const before = await answers(industries);
      expect({ total: before.total, numbers: before.numbers }).toEqual({
        total: current[i]?.total,
        numbers: current[i]?.numbers,
      });
      expect(before.rows[0], industries).toBe(current[i]?.rows[0]);
    }
  });
});

describe("the count of a lapse list by lender and industries", () => {
  /**
   * Sixty filings in MT lapsing on days 1 to 60, lenders sharing prefixes as above, debtors in one industry
   * or two, and on every fifth and seventh filing in three or four (a debtor each).
   */
  const LENDERS = [["Wells Fargo Bank"], ["Wells Fargo Bank", "Wells Fargo Equipment Finance"], ["Wellspring Capital"]];
  const industriesOf = (i: number) => [
    i % 3 === 0 ? "Real Estate" : "Manufacturing",
    ...(i % 4 === 0 ? ["Retail & E-commerce"] : []),
    ...(i % 5 === 0 ? ["Equipment", "Energy & Utilities"] : []),
    ...(i % 7 === 0 ? ["Equipment"] : []),
  ];
  const records = Array.from({ length: 60 }, (_, i) =>
    lapsing(`LIC-MT-${i}`, 1 + i, {
      state: "MT",
      debtors: [...new Set(industriesOf(i))].map((label, j) => party(`Big Sky Client ${i}-${j} LLC`, { label })),
      securedParties: (LENDERS[i % LENDERS.length] ?? []).map((name) => party(name)),
    }),
  );
  const ASKED = [
    "Real Estate",
    "Retail & E-commerce",
    "Manufacturing,Real Estate",
    "Real Estate,Retail & E-commerce",
    "Real Estate,Equipment,Energy & Utilities",
    "Manufacturing,Retail & E-commerce,Equipment,Energy & Utilities",
    "Construction & Trades,Real Estate,Retail & E-commerce,Equipment,Finance & Investments,Food & Beverage,Energy & Utilities",
  ];
  /** The count of `name` and `asked` over days `first` to `last`, and the rows it read, against the filings' own. */
  async function counted(name: string, asked: string, first: number, last: number, live: (i: number) => boolean) {
    const res = await get(
      fresh(
        `/filings/lapsing?state=MT&from=${day(first)}&to=${day(last)}&secured_party=${encodeURIComponent(name)}&industry=${encodeURIComponent(asked)}&envelope=a`,
      ),
    );
    const body = (await res.json()) as { pagination: { total_results: number } };
    const wanted = records.filter(
      (_, i) =>
        live(i) &&
        1 + i >= first &&
        1 + i <= last &&
        (LENDERS[i % LENDERS.length] ?? []).some((l) => findsSecuredParty(name, l)) &&
        industriesOf(i).some((label) => asked.split(",").includes(label)),
    ).length;
    return { total: body.pagination.total_results, wanted };
  }

  it("is exact under shared lender prefixes, each filing once, however many industries its debtors and the query hold", async () => {
    await loadDelta(records);
    for (const name of ["wells fargo", "wells", "wellspring"]) {
      for (const asked of ASKED) {
        for (const [first, last] of [
          [1, 60],
          [10, 41],
        ] as const) {
          const { total, wanted } = await counted(name, asked, first, last, () => true);
          expect(total, `${name}, ${asked}, ${first} to ${last}`).toBe(wanted);
        }
      }
    }
  });

  it("stays exact by three industries or more as filings with three are terminated", async () => {
    // Every tenth filing terminated: days 1, 11, ... (each with three industries or four, i % 5 === 0).
    const filedAt = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    await loadDelta(
      records.flatMap((r, i) =>
        i % 10 === 0
          ? [
              {
                ...r,
                amendments: [
                  { number: `${r.number}-T`, filedAt, kind: "termination" as const, description: "Termination" },
                ],
              },
            ]
          : [],
      ),
    );
    for (const name of ["wells fargo", "wells"]) {
      for (const asked of ASKED.slice(4)) {
        const { total, wanted } = await counted(name, asked, 1, 60, (i) => i % 10 !== 0);
        expect(total, `${name}, ${asked}`).toBe(wanted);
      }
    }
  });
});

describe("a lapse list by lender and industry, page by page", () => {
  /**
   * Eighty filings in WV lapsing on days 1 to 80, each with one of six lenders under "ridge" (two beyond the
   * four names a list reads by arms, so the walk serves them) and a debtor in one of three industries; every
   * fifth has a second debtor in Equipment.
   */
  const LENDERS = [
    "Ridge Alpha Bank",
    "Ridge Beta Credit",
    "Ridge Delta Finance",
    "Ridge Gamma Capital",
    "Ridge Omega Leasing",
    "Ridge Zeta Funding",
  ];
  const LABELS = ["Manufacturing", "Real Estate", "Retail & E-commerce"];
  const made = (i: number, lapse: number, label: string, lender: string) =>
    lapsing(`LIP-WV-${String(i).padStart(3, "0")}`, lapse, {
      state: "WV",
      debtors: [
        party(`Ridge Client ${i} LLC`, { label }),
        ...(i % 5 === 0 ? [party(`Ridge Partner ${i} LLC`, { label: "Equipment" })] : []),
      ],
      securedParties: [party(lender)],
    });
  type Filing = { number: string; lapse: number; labels: string[]; lender: string; live: boolean };
  const filings: Filing[] = Array.from({ length: 80 }, (_, i) => ({
    number: `LIP-WV-${String(i).padStart(3, "0")}`,
    lapse: 1 + i,
    labels: [LABELS[i % 3] ?? "", ...(i % 5 === 0 ? ["Equipment"] : [])],
    lender: LENDERS[i % LENDERS.length] ?? "",
    live: true,
  }));
  const recordOf = (f: Filing, i: number) => made(i, f.lapse, f.labels[0] ?? "", f.lender);

  /** Every page of a list (envelope B, five a page, by cursor), its numbers in order. */
  async function listed(name: string, industries: string): Promise<string[]> {
    const path = `/filings/lapsing?state=WV&from=${day(1)}&to=${day(200)}&secured_party=${encodeURIComponent(name)}&industry=${encodeURIComponent(industries)}&limit=5`;
    const out: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 40; page++) {
      const body = (await (await get(fresh(cursor ? `${path}&cursor=${cursor}` : path))).json()) as {
        ucc_liens: { initial_financing_number: string }[];
        response_metadata: { next_cursor?: string };
      };
      out.push(...numbers(body));
      cursor = body.response_metadata.next_cursor;
      if (!cursor) break;
    }
    return out;
  }
  /** What a list should hold: the live filings of lenders under the name with a debtor in one of the industries, soonest first. */
  const wanted = (name: string, industries: string) =>
    filings
      .filter(
        (f) =>
          f.live &&
          f.lapse <= 200 &&
          findsSecuredParty(name, f.lender) &&
          f.labels.some((l) => industries.split(",").includes(l)),
      )
      .sort((a, b) => a.lapse - b.lapse || a.number.localeCompare(b.number))
      .map((f) => f.number);
  const ASKED = ["Manufacturing", "Equipment", "Real Estate,Equipment", "Manufacturing,Real Estate,Equipment"];

  async function expectLists() {
    for (const name of ["ridge", "ridge alpha", "ridge zeta funding"])
      for (const industries of ASKED)
        expect(await listed(name, industries), `${name}, ${industries}`).toEqual(wanted(name, industries));
  }

  it("lists the lender's filings of the industries asked for, as loads change their lapse dates, debtors, lenders and terminations", async () => {
    await loadDelta(filings.map(recordOf));
    await expectLists();
    const filedAt = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    const changed: FilingRecord[] = [];
    filings.forEach((f, i) => {
      if (i % 7 === 0) {
        // Terminated: out of every list.
        f.live = false;
        changed.push({
          ...recordOf(f, i),
          amendments: [{ number: `${f.number}-T`, filedAt, kind: "termination", description: "Termination" }],
        });
      } else if (i % 7 === 1) {
        // Its lapse date moved: listed at its new place.
        f.lapse = 150 + i;
        changed.push(recordOf(f, i));
      } else if (i % 7 === 2) {
        // Its debtor now in another industry.
        f.labels = ["Agriculture & Farming", ...f.labels.slice(1)];
        changed.push(made(i, f.lapse, "Agriculture & Farming", f.lender));
      } else if (i % 7 === 3) {
        // Another lender.
        f.lender = LENDERS[(i + 1) % LENDERS.length] ?? "";
        changed.push(recordOf(f, i));
      }
    });
    await loadDelta(changed);
    await expectLists();
  });
});

describe("a lapse list by a name over many lenders", () => {
  /** Thirty lender names under "broad test", each on filings lapsing over 400 days in ID, by day and number. */
  const lender = (i: number) => `Broad Test Lender ${String(i).padStart(2, "0")} LLC`;
  const made = (copy: string, count: number) =>
    Array.from({ length: count }, (_, i) =>
      lapsing(`LAP-ID-${copy}${String(i).padStart(4, "0")}`, 1 + ((i * 7) % 400), {
        state: "ID",
        securedParties: [party(lender(i % 30))],
      }),
    );
  /** The numbers of a list in list order: soonest lapse first, then by number. */
  const inOrder = (records: FilingRecord[]) =>
    [...records]
      .sort(
        (a, b) => (a.officeLapseDate ?? "").localeCompare(b.officeLapseDate ?? "") || a.number.localeCompare(b.number),
      )
      .map((r) => r.number);
  async function page(query: string) {
    const res = await get(`/filings/lapsing?state=ID&from=${day(1)}&to=${day(400)}&secured_party=broad%20test${query}`);
    const body = (await res.json()) as {
      ucc_liens: { initial_financing_number: string }[];
      response_metadata: { next_cursor?: string };
    };
    return { body, rows: Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]) };
  }

  it("lists the names beyond the first four in order, reading a row a name and a few a filing, not their filings in the window", async () => {
    const first = made("A", 300);
    await loadDelta(first);
    const one = await page("");
    expect(numbers(one.body)).toEqual(inOrder(first).slice(0, 10));
    const two = await page(`&cursor=${one.body.response_metadata.next_cursor}`);
    expect(numbers(two.body)).toEqual(inOrder(first).slice(10, 20));
    // Three times the filings of each name: page 1 reads what it read (a URL not asked before: answers are cached).
    const more = made("B", 600);
    await loadDelta(more);
    const again = await page("&page=1");
    expect(numbers(again.body)).toEqual(inOrder([...first, ...more]).slice(0, 10));
    expect(again.rows).toBeLessThanOrEqual(one.rows + 10);
    // Thirty names, ten filings: about a row a name and three a filing beyond the four names' own arms.
    expect(one.rows).toBeLessThan(200);
  });

  it("queues only the names with a filing in the window, and takes its four arms' names a row each", async () => {
    // 150 names under "sparse test", each with a filing lapsing on day 300, the first four with three
    // (debtors of each kind, and of both: three debtor-type facets, "l", where each has one "k"); the
    // last three alphabetically also lapsing on days 2 to 4, in the window (the walk takes them).
    const name = (i: number) => `Sparse Test Lender ${String(i).padStart(3, "0")} LLC`;
    const debtors = [
      [party("Sparse Client", { type: "Individual" })],
      [party("Sparse Client")],
      [party("Sparse Client", { type: "Individual" }), party("Sparse Client Inc")],
    ];
    const late = Array.from({ length: 150 }, (_, i) =>
      (i < 4 ? debtors : debtors.slice(1, 2)).map((d, k) =>
        lapsing(`LAP-ID-SP${String(i).padStart(4, "0")}-${k}`, 300, {
          state: "ID",
          debtors: d,
          securedParties: [party(name(i))],
        }),
      ),
    ).flat();
    const soon = [147, 148, 149].map((i, k) =>
      lapsing(`LAP-ID-SQ${i}`, 2 + k, { state: "ID", securedParties: [party(name(i))] }),
    );
    await loadDelta([...late, ...soon]);
    const res = await get(`/filings/lapsing?state=ID&from=${day(1)}&to=${day(100)}&secured_party=sparse%20test`);
    const body = (await res.json()) as { ucc_liens: { initial_financing_number: string }[] };
    expect(numbers(body)).toEqual(["LAP-ID-SQ147", "LAP-ID-SQ148", "LAP-ID-SQ149"]);
    const rows = Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    // 347: a row a name (its "l" facets, 158) and a seek each past the four arms (146), and the arms' names
    // from their "k" facets (14). Their names from their "l" facets read 361; the walk queuing the names
    // with no filing in the window, about 490.
    expect(rows).toBeLessThanOrEqual(350);
  });
});

describe("a lapse list by many industries", () => {
  /** A lapse list by `asked`, in `state`, days 1 to 200. */
  const read = (state: string, asked: readonly string[], envelope: "a" | "b") =>
    byIndustries(state, asked, 200, envelope);

  it("reads a page of index entries more for each four industries past five, and a row for each", async () => {
    // 150 filings in NM, ten in each industry: a full page of ten for any industries asked.
    await loadDelta(
      Array.from({ length: 150 }, (_, i) =>
        lapsing(`NM-MANY-${i}`, 1 + i, {
          state: "NM",
          debtors: [party(`Many ${i} LLC`, { label: INDUSTRIES[i % INDUSTRIES.length] })],
        }),
      ),
    );
    const five = await read("NM", INDUSTRIES.slice(0, 5), "b");
    for (let k = 6; k <= INDUSTRIES.length; k++) {
      // Five index ranges are merged in one compound SELECT (D1's limit); beyond them, each four
      // more are one nested merge, which reads a page of entries (eleven) once (src/queries/filings.ts,
      // merged), and each range a seek more.
      const nested = Math.ceil((k - 5) / 4);
      const { rows } = await read("NM", INDUSTRIES.slice(0, k), "b");
      expect(rows, `${k} industries`).toBeLessThanOrEqual(five.rows + 13 * nested + (k - 5));
    }
  });

  it("reads the tallies of a set of three or more industries only when it holds one of those asked", async () => {
    // Forty filings in NH, each with its own three industries, none of the first three: the state's
    // larger sets, which a count of the first three never needs.
    const triples = INDUSTRIES.slice(3)
      .flatMap((a, i, rest) => rest.slice(i + 1).flatMap((b, j) => rest.slice(i + j + 2).map((c) => [a, b, c])))
      .slice(0, 40);
    const first = INDUSTRIES.slice(0, 3);
    await loadDelta([
      ...triples.map((set, i) =>
        lapsing(`NH-SETS-${i}`, 1 + i, {
          state: "NH",
          debtors: set.map((label, k) => party(`Sets ${i} ${k} LLC`, { label })),
        }),
      ),
      ...first.map((label, i) =>
        lapsing(`NH-FIRST-${i}`, 50 + i, { state: "NH", debtors: [party(`First ${i} LLC`, { label })] }),
      ),
      // And one that does hold three of them: its set's tallies are read, and it is counted once.
      lapsing("NH-ALL-3", 60, {
        state: "NH",
        debtors: first.map((label, k) => party(`All Three ${k} LLC`, { label })),
      }),
    ]);
    const { rows, total } = await read("NH", first, "a");
    expect(total).toBe(4);
    // The state's lapse facet's sets (four rows), the one larger set holding them (four), one row for
    // each larger set looked at, and a page of five: not four rows for each of forty sets.
    expect(rows).toBeLessThanOrEqual(4 + 4 + 41 + 40);
  });
});

describe("the count of a lapse list by many industries", () => {
  it("is exact however many are asked, and reads the same four tally rows for any number, whatever the data", async () => {
    // 120 filings in SD over four months: no industry, one, two, or three (ones that avoid the
    // asked industries among them), and some terminated, which no count holds.
    const sets = [[], [0], [9], [0, 1], [9, 10], [1, 12], [9, 10, 11], [0, 9, 13]].map((codes) =>
      codes.map((c) => INDUSTRIES[c] as string),
    );
    const records = Array.from({ length: 120 }, (_, i) =>
      lapsing(`SD-HALF-${i}`, 1 + i, {
        state: "SD",
        debtors: [
          party(`Half ${i} LLC`),
          ...(sets[i % sets.length] ?? []).map((label, k) => party(`Half ${i} ${k} LLC`, { label })),
        ],
        ...(i % 7 === 3
          ? {
              amendments: [
                {
                  number: `SD-HALF-${i}-T`,
                  filedAt: new Date(Date.now() - 30 * DAY).toISOString().replace(/\.\d{3}Z$/, "Z"),
                  kind: "termination" as const,
                  description: "Termination",
                },
              ],
            }
          : {}),
      }),
    );
    await loadDelta(records);
    // The "y" facets hold only sets of three industries or more (migration 0028): the sets of one
    // and two are the lapse facet's, and nothing reads "y" facets of them.
    const yFacets = await d1Of("SD")
      .prepare("select name, count(*) as n from facet_tallies where scope = 'y' and place = 'SD' group by name")
      .all<{ name: string; n: number }>();
    expect(yFacets.results.map((r) => r.name)).toEqual(["e3"]);
    const count = (asked: readonly string[], last: number) => byIndustries("SD", asked, last);
    const expected = (asked: readonly string[], last: number) =>
      records.filter(
        (_, i) => 1 + i <= last && i % 7 !== 3 && (sets[i % sets.length] ?? []).some((l) => asked.includes(l)),
      ).length;
    // Five industries: what its page and count read.
    const read5 = (await count(INDUSTRIES.slice(0, 5), 120)).rows;
    for (const k of [5, 7, 8, 9, 12, 15]) {
      const asked = INDUSTRIES.slice(0, k);
      for (const last of [20, 120]) {
        const { total, rows } = await count(asked, last);
        expect(total, `${k} industries through day ${last}`).toBe(expected(asked, last));
        // The count's rows as five's (the lapse facet's sets, four rows, and the larger sets looked
        // at), and the tallies of the one larger set holding none of the first five but some of the
        // first ten (four); the page as five's with a nested merge per four ranges past five (a page of
        // entries and a seek each). With the "y" facets of one and two industries, four rows each, the
        // count alone read 144 rows for eight industries and 480 for fifteen.
        const nested = Math.ceil((k - 5) / 4);
        expect(rows, `${k} industries through day ${last}`).toBeLessThanOrEqual(read5 + 4 + 13 * nested + (k - 5));
      }
    }
  });
});

describe("the count of a lapse window within one month", () => {
  it("reads two tally rows, where a window across months reads four", async () => {
    // A hundred filings in ND, one lapsing each day from tomorrow, each with a debtor in manufacturing.
    await loadDelta(
      Array.from({ length: 100 }, (_, i) =>
        lapsing(`ND-MONTH-${i}`, 1 + i, {
          state: "ND",
          debtors: [party(`Month ${i} LLC`, { label: "Manufacturing" })],
        }),
      ),
    );
    // Ten days each, a month or two out, whatever today is: the first ten of a month, and the five
    // on either side of its first day.
    const now = new Date();
    const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 1);
    const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const within = { from: dayOf(first), to: dayOf(first + 9 * DAY) };
    const across = { from: dayOf(first - 5 * DAY), to: dayOf(first + 4 * DAY) };
    const read = async (w: { from: string; to: string }, filter: string) => {
      const res = await get(`/filings/lapsing?state=ND&from=${w.from}&to=${w.to}${filter}&envelope=a`);
      const body = (await res.json()) as { pagination: { total_results: number } };
      return {
        rows: Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]),
        total: body.pagination.total_results,
      };
    };
    for (const filter of ["", "&industry=Manufacturing"]) {
      const one = await read(within, filter);
      const two = await read(across, filter);
      expect([one.total, two.total], filter).toEqual([10, 10]);
      // The same page of five; the count's tallies two rows fewer (the months before each end's month).
      expect(one.rows, filter).toBeLessThanOrEqual(two.rows - 2);
    }
  });
});

describe("the count of a lapse day by industry across deferred loads", () => {
  it("holds a day's filing terminated and another made for that day in two loads before one refresh", async () => {
    // A day of its own, far out, in MT: one filing with a debtor in manufacturing lapsing on it.
    const lapse = 700;
    const made = (number: string, more: Partial<FilingRecord> = {}) =>
      lapsing(number, lapse, {
        state: "MT",
        debtors: [party(`Deferred ${number} LLC`, { label: "Manufacturing" })],
        ...more,
      });
    await loadDelta([made("MT-DEFER-1")]);
    const count = async () => {
      const res = await get(
        `/filings/lapsing?state=MT&from=${day(lapse)}&to=${day(lapse)}&industry=Manufacturing&envelope=a`,
      );
      return ((await res.json()) as { pagination: { total_results: number } }).pagination.total_results;
    };
    expect(await count()).toBe(1);
    // Its day's tally row goes to nothing in one load and is made again by the next (src/db/tallies.ts):
    // the refresh after both must count the second filing, once.
    const terminated = made("MT-DEFER-1", {
      amendments: [
        {
          number: "MT-DEFER-1-T",
          filedAt: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
          kind: "termination",
          description: "Termination",
        },
      ],
    });
    for (const batch of [[terminated], [made("MT-DEFER-2")]]) {
      for (const [shard, db] of shardDatabases.databases) {
        const mine = batch.filter((r) => shardOf(shardDatabases.layout, r.state, r.number) === shard);
        if (mine.length > 0) await upsertFilings(db, mine, { source: "test delta", refresh: false });
      }
    }
    for (const db of shardDatabases.databases.values()) await refreshQueued(db);
    expect(await count()).toBe(1);
  });
});

// Last: it loads a state the counts above do not expect.
describe("a lapse list walked by cursor", () => {
  it("resumes a walk of the default window past midnight UTC in the window its first page had", async () => {
    await loadDelta(Array.from({ length: 12 }, (_, i) => lapsing(`LAP-VT-${i}`, 10 + i, { state: "VT" })));
    const walk = async (envelope: "a" | "b") => {
      const today = new Date().toISOString().slice(0, 10);
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        vi.setSystemTime(new Date(`${today}T23:59:58Z`));
        const first = await getJson(`/filings/lapsing?state=VT&envelope=${envelope}`);
        const paged = first as { pagination?: { next_cursor?: string }; response_metadata: { next_cursor?: string } };
        const cursor = paged.pagination?.next_cursor ?? paged.response_metadata.next_cursor;
        expect(cursor).toBeDefined();
        // The next day: a default window of its own, which a page asked for by number would take.
        vi.setSystemTime(new Date(Date.parse(`${today}T23:59:58Z`) + 5_000));
        const rest = await getJson(
          `/filings/lapsing?state=VT&envelope=${envelope}&cursor=${cursor}` as "/filings/lapsing",
        );
        return [...numbers(first), ...numbers(rest)];
      } finally {
        vi.useRealTimers();
      }
    };
    const all = Array.from({ length: 12 }, (_, i) => `LAP-VT-${i}`);
    expect(await walk("b")).toEqual(all);
    expect(await walk("a")).toEqual(all.slice(0, 10));
  });
});
