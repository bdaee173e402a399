/**
 * Cross-state answers do not depend on the shard layout: the same filings,
 * loaded once into one database and once spread over MAX_SHARDS shards,
 * give the same pages, in the same order, with the same counts and paging,
 * for every cross-state endpoint, on the direct pages (one round trip) and
 * the deep ones (two), similar names without a state included: there each
 * candidate probe's cap bites, and the candidates are still one database's.
 *
 * Both layouts are built on the test-only bindings of vitest.config.ts:
 * DB_WHOLE holds everything as the one database; DB and DB_2 to DB_16 are
 * the sixteen shards.
 */
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/d1";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { insertFilings, recordLoad, upsertFilings } from "../src/db/load.ts";
import type { FilingRecord } from "../src/db/records.ts";
import * as schema from "../src/db/schema.ts";
import { layoutOf, MAX_SHARDS, shardOf } from "../src/db/shards.ts";
import { recentWindowStart } from "../src/domain/time.ts";
import { database, readerOf } from "../src/queries/db.ts";
import { countedPageAcross } from "../src/queries/fanout.ts";
import { recentByPostalCode } from "../src/queries/filings.ts";
import { similarNames } from "../src/queries/similar.ts";
import { answerIn, daysAgo, filing, party, registerKeys, shards, TEST_KEY } from "./helpers.ts";

/** MAX_SHARDS shards: the twelve states of the lists in many, and others of MANY_STATES in the rest. */
const FULL = {
  DB_2: ["CA", "NY"],
  DB_3: ["TX", "FL"],
  DB_4: ["PA", "IL"],
  DB_5: ["WA", "OR"],
  DB_6: ["CO", "AZ"],
  DB_7: ["AL", "AK"],
  DB_8: ["AR", "CT"],
  DB_9: ["DE", "GA"],
  DB_10: ["HI", "IA"],
  DB_11: ["ID", "IN"],
  DB_12: ["KS", "KY"],
  DB_13: ["LA", "MA"],
  DB_14: ["MD", "ME"],
  DB_15: ["MI", "MN"],
  DB_16: ["MO", "MS"],
};
const STATES = ["CA", "NY", "TX", "FL", "PA", "IL", "WA", "OR", "CO", "AZ", "NV", "UT"];
const NAMES = [
  "Harbor Manufacturing Inc",
  "Harbour Manufacturing LLC",
  "Acme Widgets LLC",
  "Smith, John",
  "Blue Sky Foods",
];
const STREETS = ["1 Main St", "22 Pier Rd", "300 Mill Ave", "4 Elm Ct"];

const binding = (name: string) => Reflect.get(env, name) as D1Database;
const handle = (name: string) => drizzle(binding(name), { schema, casing: "snake_case" });

/**
 * 72 filings over twelve states (each shard holds two, DB the rest): two
 * ZIP codes shared by every state, five debtors filing in many states at
 * four shared addresses, and filing numbers repeated in two states. No
 * two filings share both time and number, so list order is total.
 */
function fixtures(): FilingRecord[] {
  return Array.from({ length: 72 }, (_, i) => {
    const state = STATES[i % STATES.length]!;
    return filing({
      state,
      number: `EQ${String(i % 40).padStart(3, "0")}`,
      filedAt: daysAgo(1 + (i % 40) + i / 1000),
      debtors: [
        party(NAMES[i % NAMES.length]!, {
          zip: i % 3 === 0 ? "10001" : "94107",
          street1: STREETS[i % STREETS.length]!,
          state: "NV",
          label: i % 2 ? "Manufacturing" : "Retail & E-commerce",
          ...(NAMES[i % NAMES.length]!.includes(",") ? { type: "Individual" as const } : {}),
        }),
      ],
    });
  });
}

/** Forty states, over all sixteen shards (DB holds those FULL does not name). */
const MANY_STATES = [
  ...STATES,
  ...["AL", "AK", "AR", "CT", "DE", "GA", "HI", "IA", "ID", "IN", "KS", "KY", "LA", "MA"],
  ...["MD", "ME", "MI", "MN", "MO", "MS", "MT", "NC", "ND", "NE", "NH", "NJ", "NM", "OH"],
];
/** One debtor's spellings: vowel slips and a dropped letter, all sounding alike, so every one shares its sound keys. */
const HARBOR = [
  "Harbor Manufacturing Inc",
  "Harbour Manufacturing LLC",
  "Harber Manufacturing Co",
  "Harbor Manufactoring Inc",
  "Harbar Manufacturing",
  "Harbor Manufacturin Corp",
];

/**
 * Names that every candidate probe finds more of than its cap, spread over
 * every shard: Zenith Widgets in forty states (more than the exact key's 10,
 * a two-word key's 12 and a one-word key's 24 names), twice in some, so
 * filing counts differ and tie; six spellings of Harbor Manufacturing in
 * eight states each, all scoring alike. 118 filings, at ZIP 60601 and with
 * numbers of their own, so the lists above do not change; with the rest,
 * one load group (FILINGS_PER_GROUP), in either layout.
 */
function similarFixtures(): FilingRecord[] {
  const acme = MANY_STATES.flatMap((state, i) =>
    Array.from({ length: i % 3 === 0 ? 2 : 1 }, () => ({ state, name: "Zenith Widgets LLC" })),
  );
  const harbor = HARBOR.flatMap((name, i) =>
    Array.from({ length: 8 }, (_, j) => ({ state: MANY_STATES[(i * 5 + j * 3) % MANY_STATES.length]!, name })),
  );
  return [...acme, ...harbor].map(({ state, name }, i) =>
    filing({
      state,
      number: `SIM${String(i).padStart(4, "0")}`,
      filedAt: daysAgo(50 + i / 100),
      debtors: [party(name, { zip: "60601", state })],
    }),
  );
}

/**
 * One person filed four ways at twelve addresses, in CA and NY (one shard)
 * and, for the oldest two, in TX: "J Smith" finds all four names, so each address
 * has four rows, newest first address by address, and a page's candidate
 * rows hold fewer addresses than the page shows.
 */
const SPELLINGS = ["Smith, John A", "Smith, John", "Smith, J A", "Smith, J"];
function spellings(): FilingRecord[] {
  return Array.from({ length: 48 }, (_, j) =>
    filing({
      state: j >= 42 ? "TX" : j % 2 ? "NY" : "CA",
      number: `SP${String(j).padStart(3, "0")}`,
      // Newer than every other fixture, a minute and a half apart.
      filedAt: daysAgo(0.5 + j / 1000),
      debtors: [
        party(SPELLINGS[j % 4]!, { type: "Individual", street1: `${Math.floor(j / 4)} Harbor Way`, zip: "60601" }),
      ],
    }),
  );
}

const whole = { ...env, DB: binding("DB_WHOLE"), SHARD_STATES: {} } as unknown as Env;
const sharded = { ...env, SHARD_STATES: FULL } as unknown as Env;

/** answerIn without the next page's cursor in the body: it holds a filing's id in its shard, so layouts differ in it. */
async function answer(layout: Env, path: string) {
  const out = await answerIn(layout, path);
  if (out.body.pagination) delete out.body.pagination.next_cursor;
  return out;
}

beforeAll(async () => {
  await registerKeys();
  for (const name of [...layoutOf(FULL).shards, "DB_WHOLE"])
    await applyD1Migrations(binding(name), env.TEST_MIGRATIONS);
  const records = [...fixtures(), ...similarFixtures(), ...spellings()];
  const at = new Date();
  await insertFilings(handle("DB_WHOLE"), records, 1);
  await recordLoad(handle("DB_WHOLE"), "equivalence", records.length, at);
  const layout = layoutOf(FULL);
  for (const shard of layout.shards) {
    const mine = records.filter((r) => shardOf(layout, r.state, r.number) === shard);
    await insertFilings(handle(shard), mine, 1);
    await recordLoad(handle(shard), "equivalence", records.length, at);
  }
});

/** Every page of `path` (and one past the end) in both layouts. */
async function expectSamePages(path: string, pages: number) {
  for (let page = 1; page <= pages + 1; page++) {
    const url = `${path}&page=${page}`;
    const [one, many] = [await answer(whole, url), await answer(sharded, url)];
    expect(one.status, url).toBe(200);
    expect(many.body, url).toEqual(one.body);
  }
}

/** Every page of `path` in `layout`, following each page's cursor from the first. */
async function walkByCursor(layout: Env, path: string) {
  const pages: Record<string, unknown>[] = [];
  let next: string | undefined = path;
  while (next !== undefined) {
    const { body, cursor } = await answer(layout, next);
    pages.push(body);
    next = cursor === undefined ? undefined : `${path}&cursor=${encodeURIComponent(cursor)}`;
  }
  return pages;
}

// Both layouts are built here: the suite's one-shard run (vitest.config.ts) need not repeat it.
describe.skipIf(shards.layout.shards.length === 1)(
  `one database and ${MAX_SHARDS} shards holding the same filings`,
  () => {
    it("is a layout of MAX_SHARDS shards, each cross-state request reading all of them", async () => {
      expect(layoutOf(FULL).shards).toHaveLength(MAX_SHARDS);
      const { timing } = await answer(sharded, "/filings/recent-by-postal-code?postal_code=94107");
      expect(timing).toContain(`1 batch`);
      expect(timing).toContain(`${MAX_SHARDS} shards`);
    });

    it("list recent filings by postal code alike, page by page, in envelope A", async () => {
      await expectSamePages("/filings/recent-by-postal-code?postal_code=94107", 10);
      await expectSamePages("/filings/recent-by-postal-code?postal_code=10001&industry=Manufacturing", 3);
    });

    it("list recent filings by postal code alike, page by page, in envelope B", async () => {
      await expectSamePages("/filings/recent-by-postal-code?postal_code=94107&envelope=b", 5);
    });

    it("look a filing number up in every state alike", async () => {
      await expectSamePages("/filings?initial_financing_number=EQ007", 1);
      await expectSamePages("/filings?initial_financing_number=NOPE", 1);
    });

    it("list a debtor's known addresses alike, each once, counted once", async () => {
      for (const name of NAMES) await expectSamePages(`/debtors/addresses?name=${encodeURIComponent(name)}`, 1);
      // Acme files at the same few addresses in many states (and shards): each counts once.
      const acme = fixtures().filter((f) => f.debtors[0]!.name === "Acme Widgets LLC");
      const distinct = new Set(acme.map((f) => `${f.debtors[0]!.address.street1}|${f.debtors[0]!.address.zipCode}`));
      expect(new Set(acme.map((f) => shardOf(layoutOf(FULL), f.state, f.number))).size).toBeGreaterThan(1);
      expect(distinct.size).toBeLessThan(acme.length);
      const { body } = await answer(sharded, `/debtors/addresses?name=${encodeURIComponent("Acme Widgets LLC")}`);
      expect(body.pagination).toMatchObject({ total_results: distinct.size });
    });

    it("list the addresses of a name found under several spellings alike, page by page, each counted once", async () => {
      const path = `/debtors/addresses?name=${encodeURIComponent("J Smith")}`;
      await expectSamePages(path, 3);
      const { body } = await answer(sharded, path);
      // The twelve Harbor Way addresses, and those "Smith, John" files at.
      const john = fixtures().filter((f) => f.debtors[0]!.name === "Smith, John");
      const johns = new Set(john.map((f) => `${f.debtors[0]!.address.street1}|${f.debtors[0]!.address.zipCode}`));
      expect(body.pagination).toMatchObject({ total_results: 12 + johns.size });
      expect((body.addresses as { street1: string }[]).map((a) => a.street1)).toEqual([
        "0 Harbor Way",
        "1 Harbor Way",
        "2 Harbor Way",
        "3 Harbor Way",
        "4 Harbor Way",
      ]);
    });

    it("walk every cross-state list by cursor to one database's pages", async () => {
      for (const path of [
        "/filings/recent-by-postal-code?postal_code=94107",
        "/filings/recent-by-postal-code?postal_code=94107&envelope=b",
        "/filings/recent-by-postal-code?postal_code=10001&industry=Manufacturing",
        "/filings?initial_financing_number=EQ007",
        ...["Acme Widgets LLC", "J Smith", "Smith, John"].map(
          (n) => `/debtors/addresses?name=${encodeURIComponent(n)}`,
        ),
        "/debtors/search-similar?name=Zenith%20Widgets",
      ]) {
        const many = await walkByCursor(sharded, path);
        const one: Record<string, unknown>[] = [];
        for (let page = 1; page <= many.length; page++) one.push((await answer(whole, `${path}&page=${page}`)).body);
        expect(many, path).toEqual(one);
        // The walk went to the end: the page after its last is empty.
        const after = (await answer(whole, `${path}&page=${many.length + 1}`)).body;
        expect(Object.values(after).filter(Array.isArray).flat(), path).toEqual([]);
      }
    });

    it("read a shard again only when its candidate rows hold too few addresses", async () => {
      const once = await answer(sharded, `/debtors/addresses?name=${encodeURIComponent("Acme Widgets LLC")}`);
      expect(once.timing).toMatch(/desc="1 batch, /);
      // Four rows per address: page 1's fifteen rows hold four addresses in CA and NY's shard.
      const twice = await answer(sharded, `/debtors/addresses?name=${encodeURIComponent("J Smith")}`);
      expect(twice.timing).toMatch(/desc="2 batch, /);
    });

    it("take three round trips past the direct pages by number (counts, keys, rows), still alike", async () => {
      const { timing } = await answer(sharded, "/filings/recent-by-postal-code?postal_code=94107&page=4");
      expect(timing).toMatch(/^d1;dur=\d+;desc="3 batch, /);
    });

    it("answer a page past the end by number from the counts alone, in one round trip", async () => {
      const { body, timing } = await answer(sharded, "/filings/recent-by-postal-code?postal_code=94107&page=500");
      expect(body.ucc_liens).toEqual([]);
      expect(timing).toMatch(/^d1;dur=\d+;desc="1 batch, /);
    });

    it("find the same similar names without a state, page by page, though each probe's cap bites on every shard", async () => {
      for (const name of [
        "Zenith Widgets",
        "Widgets Zenith",
        "Zenth Widget",
        "Harbor Manufacturing",
        "Harbour Mfg",
        "Acme Widget",
        "Smith John",
        // One word: John Smith's names run together, read in TX's shard and CA and NY's.
        "Johnsmith",
        "Smithjohn",
      ]) {
        const path = `/debtors/search-similar?name=${encodeURIComponent(name)}`;
        const { body } = await answer(whole, path);
        const total = (body as { pagination: { total_results: number } }).pagination.total_results;
        expect(total, path).toBeGreaterThan(0);
        await expectSamePages(path, Math.ceil(total / 5));
      }
      // The caps bite: one database ranks fewer Zenith names than there are,
      // and ranking each shard's own candidates together would have ranked more.
      const zenith = new Set(
        similarFixtures()
          .filter((f) => f.debtors[0]!.name.startsWith("Zenith"))
          .map((f) => f.state),
      );
      const { body } = await answer(whole, "/debtors/search-similar?name=Zenith%20Widgets");
      const ranked = (body as { pagination: { total_results: number } }).pagination.total_results;

      expect(ranked).toBeLessThan(zenith.size);
      const perShard = await Promise.all(
        layoutOf(FULL).shards.map((s) => similarNames(database(binding(s)), { name: "Zenith Widgets" })),
      );
      const union = new Set(perShard.flat().map((n) => `${n.nameKey} ${n.state}`));
      expect(union.size).toBeGreaterThan(ranked);
    });

    it("merge a deep cross-state page from plain query handles, without a request, as the API answers it", async () => {
      const reader = readerOf(new Map(layoutOf(FULL).shards.map((s) => [s, database(binding(s))])));
      const filter = { zip5: "94107", since: recentWindowStart(new Date()) };
      const merged = await countedPageAcross(reader, () => recentByPostalCode(filter), { page: 4, size: 5 });
      const { body } = await answer(sharded, "/filings/recent-by-postal-code?postal_code=94107&page=4");
      const liens = body.ucc_liens as { initial_financing_number: string; jurisdiction_state: string }[];
      expect(liens).toHaveLength(5);
      expect(merged.items.map((i) => [i.filing.number, i.filing.state])).toEqual(
        liens.map((l) => [l.initial_financing_number, l.jurisdiction_state]),
      );
      expect(merged.total).toBe((body.pagination as { total_results: number }).total_results);
    });

    it("answer single-state requests from the state's shard alone, in one round trip", async () => {
      for (const path of [
        "/filings/recent-by-state?state=WA",
        "/debtors/search?name=Blue%20Sky%20Foods&state=OR",
        "/filings?initial_financing_number=EQ007&state=TX",
      ]) {
        const [one, many] = [await answer(whole, path), await answer(sharded, path)];
        expect(many.body, path).toEqual(one.body);
        expect(many.timing, path).toMatch(/^d1;dur=\d+;desc="1 batch, \d+ rows read"$/);
      }
    });

    it("give the same change feed, every change once and in the same order per state", async () => {
      // A day's delta in every layout: amendments of every kind over several shards, and new filings.
      const delta = fixtures()
        .slice(0, 24)
        .map((f, i) => ({
          ...f,
          amendments: [
            {
              number: `${f.state}-${f.number}-A`,
              filedAt: daysAgo(1),
              kind: (["continuation", "termination", "assignment", "collateral_change"] as const)[i % 4]!,
              description: ["Continuation", "Termination", "Assignment", "Amendment - Collateral"][i % 4]!,
            },
          ],
        }));
      await upsertFilings(handle("DB_WHOLE"), delta, { source: "equivalence delta" });
      for (const shard of layoutOf(FULL).shards) {
        const mine = delta.filter((r) => shardOf(layoutOf(FULL), r.state, r.number) === shard);
        if (mine.length > 0) await upsertFilings(handle(shard), mine, { source: "equivalence delta" });
      }
      /** Every change of `query` in `layout`, following next_cursor: what each says, without ids and times the databases assign. */
      const feed = async (layout: Env, query: string) => {
        const out: string[] = [];
        let cursor: string | undefined;
        for (;;) {
          const url = `/filings/changes?${query}${cursor ? `&cursor=${cursor}` : ""}`;
          const res = await createApp().request(url, { headers: { "x-api-key": TEST_KEY } }, layout);
          const body = (await res.json()) as {
            changes: {
              type: string;
              jurisdiction_state: string;
              initial_financing_number: string;
              occurred_at: string;
              amendment?: unknown;
            }[];
            response_metadata: { next_cursor: string; has_more: boolean };
          };
          for (const c of body.changes) {
            out.push(
              JSON.stringify([
                c.jurisdiction_state,
                c.initial_financing_number,
                c.type,
                c.occurred_at,
                c.amendment ?? null,
              ]),
            );
          }
          cursor = body.response_metadata.next_cursor;
          if (!body.response_metadata.has_more) return out;
        }
      };
      for (const query of ["limit=7", "types=filing.terminated,filing.assigned&limit=3", "state=CA&limit=5"]) {
        const [one, many] = [await feed(whole, query), await feed(sharded, query)];
        expect(one.length, query).toBeGreaterThan(0);
        expect([...many].sort(), query).toEqual([...one].sort());
        // Per state, in the order each database recorded them.
        for (const state of STATES) {
          const of = (list: string[]) => list.filter((c) => c.startsWith(`["${state}"`));
          expect(of(many), `${query} ${state}`).toEqual(of(one));
        }
      }
    });

    // Last: it changes the data.
    it("keep the place of a debtor gone from a sound key, as one database does", async () => {
      const path = "/debtors/search-similar?name=Zenith%20Widgets";
      const before = await answer(whole, path);
      // Zenith's one filing in AK, the first state in sound-key order, now names another debtor:
      // the AK name goes, its sound keys stay behind and still take the first place of each range.
      const gone = similarFixtures().find((f) => f.state === "AK" && f.debtors[0]!.name.startsWith("Zenith"))!;
      const other = { ...gone, debtors: [party("Quiet Holdings LLC", { zip: "60601", state: "AK" })] };
      for (const db of [handle("DB_WHOLE"), handle(shardOf(layoutOf(FULL), "AK", gone.number))]) {
        await upsertFilings(db, [other], { record: false });
      }
      const after = await answer(whole, path);
      const total = (a: typeof before) =>
        (a.body as { pagination: { total_results: number } }).pagination.total_results;
      expect(total(after)).toBe(total(before) - 1);
      await expectSamePages(path, Math.ceil(total(after) / 5));
    });
  },
);
