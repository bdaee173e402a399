/**
 * The shard layout (src/db/shards.ts) as configuration: what a valid
 * SHARD_STATES is, and that every environment of wrangler.toml has one
 * whose bindings it declares (the check `npm run db:migrate` and the
 * deploy scripts make before touching a database).
 */
import { describe, expect, it } from "vitest";
import { shardConfig } from "../../scripts/shardConfig.ts";
import { DEFAULT_SHARD, layoutOf, MAX_SHARDS, ShardConfigError, shardOf, statesOf } from "../../src/db/shards.ts";

describe("a shard layout", () => {
  it("is one database without SHARD_STATES, or with an empty one", () => {
    for (const config of [undefined, {}, "{}"]) {
      const layout = layoutOf(config);
      expect(layout.shards).toEqual([DEFAULT_SHARD]);
      expect(shardOf(layout, "CA")).toBe(DEFAULT_SHARD);
    }
  });

  it("sends each named state to its shard and every other state to DB", () => {
    const layout = layoutOf('{"DB_2": ["CA"], "DB_BIG": ["TX", "FL"]}');
    expect(layout.shards).toEqual(["DB", "DB_2", "DB_BIG"]);
    expect([shardOf(layout, "CA"), shardOf(layout, "FL"), shardOf(layout, "WY")]).toEqual(["DB_2", "DB_BIG", "DB"]);
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
      Object.fromEntries(["CA", "TX", "FL", "NY", "PA", "IL"].map((s, i) => [`DB_${i + 2}`, [s]])),
      `at most ${MAX_SHARDS} shards`,
    ],
    ["text that is not JSON", "{DB_2: CA}", "not JSON"],
  ])("refuses %s, saying why", (_, config, message) => {
    expect(() => layoutOf(config)).toThrow(ShardConfigError);
    expect(() => layoutOf(config)).toThrow(message);
  });
});

describe("wrangler.toml's layouts", () => {
  it.each([
    ["local development and tests", undefined],
    ["production", "production"],
    ["preview", "preview"],
  ])("%s: four shards, each a declared D1 database", async (_, env) => {
    const config = await shardConfig(env);
    expect(config.databases.map((d) => d.binding)).toEqual(["DB", "DB_2", "DB_3", "DB_4"]);
    expect(new Set(config.databases.map((d) => d.databaseName)).size).toBe(4);
    expect(new Set(config.databases.map((d) => d.databaseId)).size).toBe(4);
  });
});
