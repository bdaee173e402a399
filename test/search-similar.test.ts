import { beforeAll, describe, expect, it } from "vitest";
import { SIMILARITY_THRESHOLD } from "../src/domain/similarity.ts";
import { MAX_KEY_WORDS } from "../src/domain/soundKeys.ts";
import { MAX_ROWS_READ, MAX_ROWS_READ_ACROSS } from "../src/queries/similar.ts";
import { filing, get, getJson, load, party, registerKeys, shards } from "./helpers.ts";

const names: [string, string][] = [
  ["Prairie Bakery LLC", "CA"],
  ["Sanchez & Sons Cafe, Inc.", "NY"],
  ["Blue Ridge Trucking Company", "VA"],
  ["O'Brien Dental P.C.", "MA"],
  ["Golden Gate Machine Works Corp.", "CA"],
  ["Kowalski Equipment Rental", "IL"],
  ["Summit Roofing Inc", "CO"],
  ["Pioneer Bakery LLC", "CA"],
];

/**
 * A dense state: the common words of the targets' names (Goods, Allen,
 * Freight) each carry a hundred or more names, far more than any one index
 * probe reads, and many of them share a target's first letters.
 */
const SYLLABLES = ["Ma", "Me", "Mo", "Ba", "Ca", "Da", "Fa", "Ha", "La", "Na", "Pa", "Ra", "Ta"];
const ENDINGS = ["ple", "ner", "ton", "ley", "dell", "rick", "ford", "wood", "son", "line"];
const WORDS = SYLLABLES.flatMap((a) => ENDINGS.map((b) => `${a}${b}`));
const GIVEN = ["Nadia", "Nathan", "Nora", "Noel", "Neil", "Ned", "Mary", "James", "Linda", "Omar", "Priya", "Wei"];
const DENSE: string[] = [
  "Magnolia Goods, Inc.",
  "Nancy Q. Allen",
  "The Red River Freight LLC",
  "Lone Star Mfg Co",
  "Gulf Coast Brothers Construction LLC",
  ...WORDS.map((w) => `${w} Goods LLC`),
  ...WORDS.map((w) => `${w} Freight Inc.`),
  ...WORDS.slice(0, 40).map((w) => `${w} River Freight`),
  ...GIVEN.flatMap((g) => ["A", "Q", "R", "T", "W", "Z"].map((i) => `${g} ${i}. Allen`)),
  ...WORDS.slice(0, 60).map((w) => `${w} Allen`),
  // Names that begin like Cedar Ridge Builders and come before it in key order.
  "Cedar Ridge Builders LLC",
  ...WORDS.slice(0, 12).map((w) => `Cedar ${w} Supply`),
];

/** Betty Walker's namesakes with a middle initial, last name first: more than one probe reads. */
const BETTY_WALKERS = [..."ABCDEFGHIJKL"].map((m) => `Walker, Betty ${m}.`);
/**
 * People, filed as individuals: Betty Walker (TX), her namesakes in TX and
 * CA (two shards in the test layout), people sharing her first or her
 * last name, and people sharing a part of an organization's name.
 */
const PEOPLE: [string, string][] = [
  ["Betty Walker", "TX"],
  ...BETTY_WALKERS.flatMap((name): [string, string][] => [
    [name, "TX"],
    [name, "CA"],
  ]),
  ...GIVEN.map((g): [string, string] => [`${g} Walker`, "TX"]),
  ...WORDS.slice(0, 30).map((w): [string, string] => [`Betty ${w}`, "TX"]),
  ["Acme Smith", "TX"],
  ["Al Holdings", "TX"],
];

/** A 66-word name: only its first MAX_KEY_WORDS words make sound keys. */
const LONG = WORDS.slice(0, 66).join(" ");
/**
 * A crowd in two states that the test layout keeps in two shards (TX, CA):
 * names of LONG's key words and one more, so that every sound-key probe of
 * LONG reads up to its cap in each of them.
 */
const CROWD = WORDS.slice(70, 86).map((w) => `${WORDS.slice(0, MAX_KEY_WORDS).join(" ")} ${w}`);
const CROWDED_STATES = ["TX", "CA"];

beforeAll(async () => {
  await registerKeys();
  await load([
    ...names.map(([name, state]) => filing({ state, debtors: [party(name, { state })] })),
    ...DENSE.map((name) => filing({ state: "TX", debtors: [party(name, { state: "TX" })] })),
    ...PEOPLE.map(([name, state]) => filing({ state, debtors: [party(name, { state, type: "Individual" })] })),
    filing({ state: "TX", debtors: [party("Acme Holdings LLC", { state: "TX" })] }),
    filing({ state: "TX", debtors: [party("Walker Freight Inc", { state: "TX" })] }),
    ...CROWDED_STATES.flatMap((state) => CROWD.map((name) => filing({ state, debtors: [party(name, { state })] }))),
    // Two debtors that read alike without their middle word, in six states each.
    ...["OR", "WA", "ID", "MT", "WY", "UT"].flatMap((state) =>
      ["Sunbelt Lift Services LLC", "Sunbelt Data Services LLC"].map((name) =>
        filing({ state, debtors: [party(name, { state })] }),
      ),
    ),
    // More filings of one debtor, under other spellings: counted together.
    filing({ debtors: [party("PRAIRIE BAKERY, L.L.C.")] }),
    filing({ debtors: [party("Prairie Bakery Inc")] }),
    filing({ state: "NV", debtors: [party("Prairie Bakery LLC", { state: "NV" })] }),
  ]);
});

describe("GET /debtors/search-similar", () => {
  it.each([
    ["a typo", "Prarie Bakery", "Prairie Bakery LLC"],
    ["two typos", "Prarie Bakkery", "Prairie Bakery LLC"],
    ["swapped word order", "Bakery Prairie", "Prairie Bakery LLC"],
    ["another legal ending", "Prairie Bakery Corporation", "Prairie Bakery LLC"],
    ["no legal ending", "Sanchez and Sons Cafe", "Sanchez & Sons Cafe, Inc."],
    ["a sound-alike letter", "Sanches & Sons Kafe", "Sanchez & Sons Cafe, Inc."],
    ["missing punctuation", "OBrien Dental PC", "O'Brien Dental P.C."],
    ["words run together", "blueridge trucking", "Blue Ridge Trucking Company"],
    ["a dropped word", "Golden Gate Machine", "Golden Gate Machine Works Corp."],
    ["a transposition", "Kowalksi Equipment Rental", "Kowalski Equipment Rental"],
    ["different case and spacing", "  summit   ROOFING  ", "Summit Roofing Inc"],
  ])("finds its target on the first page despite %s", async (_, query, target) => {
    const body = await getJson(`/debtors/search-similar?name=${encodeURIComponent(query)}`);
    const found = body.similar_debtors.map((d) => d.debtor_name);
    expect(found).toContain(target);
  });

  it("ranks the closest first, with state, filing count and a score in [0, 1]", async () => {
    const body = await getJson("/debtors/search-similar?name=Prairie%20Bakery&state=CA");
    expect(body.similar_debtors[0]).toEqual({
      debtor_name: "Prairie Bakery Inc",
      debtor_state: "CA",
      filing_count: 3,
      score: 1,
    });
    for (const d of body.similar_debtors) {
      expect(d.score).toBeGreaterThanOrEqual(SIMILARITY_THRESHOLD);
      expect(d.score).toBeLessThanOrEqual(1);
    }
    const scores = body.similar_debtors.map((d) => d.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(body.pagination).toMatchObject({ current_page: 1, page_size: 5 });
  });

  it("keeps to the state when one is given, and spans states otherwise", async () => {
    const inCa = await getJson("/debtors/search-similar?name=Prairie%20Bakery&state=ca");
    expect(inCa.similar_debtors.map((d) => d.debtor_state)).not.toContain("NV");
    const anywhere = await getJson("/debtors/search-similar?name=Prairie%20Bakery");
    expect(anywhere.similar_debtors.map((d) => d.debtor_state)).toEqual(expect.arrayContaining(["CA", "NV"]));
  });

  it.each(["Acme Widgets", "Zebra Logistics", "Quantum Software"])(
    "does not offer unrelated names for %s",
    async (query) => {
      const body = await getJson(`/debtors/search-similar?name=${encodeURIComponent(query)}`);
      expect(body.similar_debtors).toEqual([]);
      expect(body.pagination.total_results).toBe(0);
    },
  );

  it("leaves a merely related name below the threshold", async () => {
    const body = await getJson("/debtors/search-similar?name=Prairie%20Bakery&state=CA");
    expect(body.similar_debtors.map((d) => d.debtor_name)).not.toContain("Pioneer Bakery LLC");
  });

  it("needs a key and a name", async () => {
    expect((await get("/debtors/search-similar?name=x", null)).status).toBe(401);
    const body = await getJson("/debtors/search-similar?state=CA", 400);
    expect(body.error.details?.map((d) => d.parameter)).toEqual(["name"]);
  });
});

describe("GET /debtors/search-similar in dense states", () => {
  let asked = 0;
  const first = async (query: string, state?: string) => {
    // A fresh parameter each time, so no answer comes from the edge cache.
    asked += 1;
    const q = new URLSearchParams({ name: query, ...(state ? { state } : {}), run: String(asked) });
    const res = await get(`/debtors/search-similar?${q}`);
    expect(res.status).toBe(200);
    const timing = res.headers.get("server-timing") ?? "";
    const body = (await res.json()) as { similar_debtors: { debtor_name: string; score: number }[] };
    return {
      names: body.similar_debtors.map((d) => d.debtor_name),
      scores: body.similar_debtors.map((d) => d.score),
      rowsRead: Number(/(\d+) rows read/.exec(timing)?.[1]),
      // Shards read, and the most rows one of them read, named in Server-Timing when more than one.
      shards: Number(/(\d+) shards/.exec(timing)?.[1] ?? 1),
      busiestShard: Number(/at most (\d+) on one/.exec(timing)?.[1] ?? /(\d+) rows read/.exec(timing)?.[1]),
      batches: Number(/(\d+) batch/.exec(timing)?.[1]),
    };
  };

  it.each([
    ["Magsolia Goods, Inc.", "Magnolia Goods, Inc."],
    ["Naney Q. Allen", "Nancy Q. Allen"],
    ["Nnacy Q. Allen", "Nancy Q. Allen"],
    ["Thered River Freight LLC", "The Red River Freight LLC"],
  ])("finds %s on the first page, with the state and without", async (query, target) => {
    expect((await first(query, "TX")).names).toContain(target);
    expect((await first(query)).names).toContain(target);
  });

  it.each([
    ["Allen, Nancy Q.", "last name first"],
    ["Nancy Allen", "no middle initial"],
    ["Nancy R. Allen", "another middle initial"],
    ["Nansy Q. Allen", "a misspelled first name"],
    ["Nancy Q. Alen", "a misspelled last name"],
    ["Allen, Nancie", "last name first, misspelled, no initial"],
  ])("finds an individual as %s (%s)", async (query) => {
    expect((await first(query, "TX")).names).toContain("Nancy Q. Allen");
  });

  it.each(["Bettywalker", "Walkerbetty", "BETTYWALKER"])(
    "finds an individual from her first and last names run together (%s), first, scored 1",
    async (query) => {
      for (const state of ["TX", undefined]) {
        const found = await first(query, state);
        expect(found.names[0]).toBe("Betty Walker");
        expect(found.scores[0]).toBe(1);
      }
    },
  );

  it("ranks her namesakes with a middle initial next, scored below 1", async () => {
    for (const query of ["Bettywalker", "Walkerbetty"]) {
      const found = await first(query, "TX");
      expect(found.names.slice(1)).toEqual(BETTY_WALKERS.slice(0, 4));
      for (const score of found.scores.slice(1)) expect(score).toBeLessThan(1);
    }
  });

  it("finds an organization from its words run together as before, and no one sharing a part of them", async () => {
    for (const state of ["TX", undefined]) {
      const found = await first("Acmeholdings", state);
      expect(found.names).toEqual(["Acme Holdings LLC"]);
      expect(found.scores).toEqual([1]);
    }
  });

  it("finds an organization from its words run together without the people whose last name begins it", async () => {
    // The key-prefix probe reads people named Walker: none is "Walkerfreight".
    for (const state of ["TX", undefined]) {
      const found = await first("Walkerfreight", state);
      expect(found.names).toEqual(["Walker Freight Inc"]);
    }
  });

  it("finds an organization from its first words run together, the rest left out", async () => {
    for (const state of ["TX", undefined]) {
      const found = await first("Redriver", state);
      expect(found.names[0]).toBe("The Red River Freight LLC");
      expect(found.scores[0]).toBeGreaterThan(0.8);
    }
  });

  it("finds an organization from its leading words run together beyond the first four letters' crowd", async () => {
    for (const query of ["Cedarridge", "Cedar Ridge"]) {
      for (const state of ["TX", undefined]) {
        const found = await first(query, state);
        expect(found.names[0]).toBe("Cedar Ridge Builders LLC");
      }
    }
  });

  it("shows different debtors before the same debtor in another state", async () => {
    const found = await first("Sunbelt Services");
    expect(found.names.slice(0, 2).sort()).toEqual(["Sunbelt Data Services LLC", "Sunbelt Lift Services LLC"]);
  });

  it("scores an individual named last name first as the same person", async () => {
    const found = await first("Allen, Nancy Q.", "TX");
    expect(found.names[0]).toBe("Nancy Q. Allen");
    expect(found.scores[0]).toBe(1);
  });

  it.each([
    ["Lone Star Manufacturing Company", "Lone Star Mfg Co"],
    ["Lone Star Mfg. Co.", "Lone Star Mfg Co"],
    ["Gulf Coast Bros. Constr.", "Gulf Coast Brothers Construction LLC"],
    ["Gulf Coast Bros Construction", "Gulf Coast Brothers Construction LLC"],
  ])("reads abbreviations as their long forms: %s", async (query, target) => {
    const found = await first(query, "TX");
    expect(found.names[0]).toBe(target);
    expect(found.scores[0]).toBe(1);
  });

  it("answers in one round trip within the documented rows-read bound per shard read, even for a 66-word name", async () => {
    for (const query of ["Magsolia Goods, Inc.", "Nancy Allen", "Bettywalker", LONG]) {
      for (const state of [...CROWDED_STATES, undefined]) {
        const found = await first(query, state);
        expect(found.batches).toBe(1);
        expect(found.shards).toBe(state ? 1 : shards.layout.shards.length);
        expect(found.busiestShard).toBeLessThanOrEqual(state ? MAX_ROWS_READ : MAX_ROWS_READ_ACROSS);
      }
    }
  });

  it("bounds each shard, not the request: a name crowded in two shards reads more than one bound in all", async () => {
    for (const state of CROWDED_STATES) expect((await first(LONG, state)).rowsRead).toBeGreaterThan(MAX_ROWS_READ / 2);
    // Over one database (the one-shard layout) the crowd shares one bound.
    const anywhere = await first(LONG);
    if (anywhere.shards > 1) expect(anywhere.rowsRead).toBeGreaterThan(MAX_ROWS_READ_ACROSS);
  });
});
