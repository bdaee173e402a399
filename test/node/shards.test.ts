/**
 * The shard layout (src/db/shards.ts) as configuration: what a valid
 * SHARD_STATES is, and that every environment of wrangler.toml has one
 * whose bindings it declares (the check `npm run db:migrate` and the
 * deploy scripts make before touching a database).
 */
import { describe, expect, it } from "vitest";
import { shardConfig } from "../../scripts/shardConfig.ts";
import {
  DEFAULT_SHARD,
  layoutOf,
  MAX_SHARDS,
  partsOf,
  ShardConfigError,
  shardOf,
  statesOf,
} from "../../src/db/shards.ts";
import { hash32 } from "../../src/domain/hash64.ts";

describe("a shard layout", () => {
  it("is one database without SHARD_STATES, or with an empty one", () => {
    for (const config of [undefined, {}, "{}"]) {
      const layout = layoutOf(config);
      expect(layout.shards).toEqual([DEFAULT_SHARD]);
      expect(shardOf(layout, "CA", "2026-0001")).toBe(DEFAULT_SHARD);
    }
  });

  it("sends each named state to its shard and every other state to DB", () => {
    const layout = layoutOf('{"DB_2": ["CA"], "DB_BIG": ["TX", "FL"]}');
    expect(layout.shards).toEqual(["DB", "DB_2", "DB_BIG"]);
    expect(["CA", "FL", "WY"].map((s) => shardOf(layout, s, "0001"))).toEqual(["DB_2", "DB_BIG", "DB"]);
    expect(["CA", "FL", "WY"].map((s) => partsOf(layout, s))).toEqual([["DB_2"], ["DB_BIG"], ["DB"]]);
    expect(statesOf(layout, "DB_BIG")).toEqual(["TX", "FL"]);
    expect(statesOf(layout, "DB")).toBeUndefined();
  });

  it.each([
    ["a state in two shards", { DB_2: ["CA"], DB_3: ["CA"] }, "CA is mapped to both DB_2 and DB_3"],
    ["an unknown state", { DB_2: ["XX"] }, "DB_2"],
    ["a shard with no state", { DB_2: [] }, "at least one state"],
    ["a binding not named DB_...", { SHARD2: ["CA"] }, "DB_"],
    ["the default shard named", { DB: ["CA"] }, "DB_"],
    [
      "more shards than MAX_SHARDS",
      Object.fromEntries(
        ["CA", "TX", "FL", "NY", "PA", "IL", "OH", "GA", "NC", "MI", "NJ", "VA", "WA", "AZ", "MA", "TN"].map((s, i) => [
          `DB_${i + 2}`,
          [s],
        ]),
      ),
      `at most ${MAX_SHARDS} shards`,
    ],
    ["a part of an unknown state", { DB_2: ["XX/1"], DB_3: ["XX/2"] }, "a state code"],
    ["a part numbered 0", { DB_2: ["CA/0"], DB_3: ["CA/1"] }, "a state code"],
    ["a split state missing a part", { DB_2: ["CA/1"], DB_3: ["CA/3"] }, "CA/2 is in no shard"],
    ["a state of one part", { DB_2: ["CA/1"] }, "the only part of CA"],
    ["two parts of a state in one shard", { DB_2: ["CA/1", "CA/2"] }, "each be in a different shard"],
    ["a state both whole and split", { DB_2: ["CA", "CA/1"], DB_3: ["CA/2"] }, "both whole"],
    ["one part in two shards", { DB_2: ["CA/1"], DB_3: ["CA/2"], DB_4: ["CA/1"] }, "CA/1 is mapped to both"],
    ["text that is not JSON", "{DB_2: CA}", "not JSON"],
  ])("refuses %s, saying why", (_, config, message) => {
    expect(() => layoutOf(config)).toThrow(ShardConfigError);
    expect(() => layoutOf(config)).toThrow(message);
  });
});

describe("a state split in parts", () => {
  const layout = layoutOf({ DB_2: ["CA/1", "NY"], DB_3: ["TX", "CA/2"] });

  it("is held by every part's shard, part 1 first, and each part is listed in its shard", () => {
    expect(partsOf(layout, "CA")).toEqual(["DB_2", "DB_3"]);
    expect(statesOf(layout, "DB_2")).toEqual(["NY", "CA/1"]);
    expect(statesOf(layout, "DB_3")).toEqual(["TX", "CA/2"]);
    expect(layout.shards).toEqual(["DB", "DB_2", "DB_3"]);
  });

  it("sends a filing to the part its number's hash names, the same part every time", () => {
    const numbers = Array.from({ length: 2000 }, (_, i) => `2026${String(i).padStart(8, "0")}`);
    const placed = numbers.map((n) => shardOf(layout, "CA", n));
    expect(placed).toEqual(numbers.map((n) => (hash32(n) % 2 === 0 ? "DB_2" : "DB_3")));
    expect(numbers.map((n) => shardOf(layout, "CA", n))).toEqual(placed);
    // Even: a hash of consecutive numbers splits them about in half.
    const first = placed.filter((s) => s === "DB_2").length;
    expect(first).toBeGreaterThan(900);
    expect(first).toBeLessThan(1100);
  });

  it("sends the other states of its shards by state alone", () => {
    expect(["NY", "TX", "WY"].map((s) => shardOf(layout, s, "2026000001"))).toEqual(["DB_2", "DB_3", "DB"]);
  });

  it("hashes a number by FNV-1a from its 32-bit offset basis, mixed at the end", () => {
    // FNV-1a of "a": 0xe40c292c; then h ^= h >>> 16, h *= 0x85ebca6b, h ^= h >>> 13.
    let h = 0xe40c292c;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    expect(hash32("a")).toBe(h >>> 0);
  });
});

describe("wrangler.toml's layouts", () => {
  it.each([
    ["local development and tests", undefined],
    ["preview", "preview"],
  ])("%s: four shards, each a declared D1 database", async (_, env) => {
    const config = await shardConfig(env);
    expect(config.databases.map((d) => d.binding)).toEqual(["DB", "DB_2", "DB_3", "DB_4"]);
    expect(new Set(config.databases.map((d) => d.databaseName)).size).toBe(4);
    expect(new Set(config.databases.map((d) => d.databaseId)).size).toBe(4);
  });

  it("production: docs/sharding.md's fifteen databases, California and Texas each in two parts", async () => {
    const config = await shardConfig("production");
    expect(config.databases.map((d) => d.binding)).toEqual([
      "DB",
      ...Array.from({ length: 14 }, (_, i) => `DB_${i + 2}`),
    ]);
    expect(new Set(config.databases.map((d) => d.databaseName)).size).toBe(15);
    expect(new Set(config.databases.map((d) => d.databaseId)).size).toBe(15);
    expect(partsOf(config.layout, "CA")).toEqual(["DB_4", "DB_5"]);
    expect(partsOf(config.layout, "TX")).toEqual(["DB_6", "DB_7"]);
    expect(partsOf(config.layout, "FL")).toEqual(["DB_2"]);
    expect(partsOf(config.layout, "WY")).toEqual(["DB"]);
  });
});
