/**
 * What an environment pulls (src/platform/pullConfig.ts): wrangler.toml's
 * PULL_SOURCES and SOURCE_PORTALS are read as objects or JSON text, a value
 * that cannot be used says which var and why, and every environment's
 * values read: production pulls the three offices, preview and local
 * development none.
 */
import { describe, expect, it } from "vitest";
import { CONFIG } from "../../scripts/shardConfig.ts";
import { pullConfig } from "../../src/platform/pullConfig.ts";

describe("pull configuration", () => {
  it("reads the sources and their portals, as objects or JSON text", () => {
    expect(
      pullConfig({ PULL_SOURCES: ["ct", "co", "ct"], SOURCE_PORTALS: { co: "https://mirror.example/co/" } }),
    ).toEqual({ sources: ["ct", "co"], portals: { co: "https://mirror.example/co" } });
    expect(pullConfig({ PULL_SOURCES: '["or"]' })).toEqual({ sources: ["or"], portals: {} });
    expect(pullConfig({})).toEqual({ sources: [], portals: {} });
  });

  it.each([
    [{ PULL_SOURCES: "ct,co" }, "PULL_SOURCES is not JSON"],
    [{ PULL_SOURCES: ["ct", "nv"] }, "PULL_SOURCES.1: Invalid option"],
    [{ PULL_SOURCES: '"ct"' }, "PULL_SOURCES: Invalid input: expected array"],
    [{ SOURCE_PORTALS: { ct: "ftp://mirror.example" } }, "SOURCE_PORTALS.ct: not an http(s) URL"],
    [{ SOURCE_PORTALS: { nv: "https://mirror.example" } }, "SOURCE_PORTALS"],
  ])("refuses %j, naming the var", (vars, message) => {
    expect(() => pullConfig(vars)).toThrow(message);
  });

  it.each([
    ["local development and tests", [], undefined],
    ["production", ["ct", "co", "or"], "production"],
    ["preview", [], "preview"],
  ])("wrangler.toml's %s pulls %j", async (_, sources, env) => {
    const { unstable_readConfig } = await import("wrangler");
    const { vars } = unstable_readConfig({ config: CONFIG, env });
    expect(pullConfig(vars)).toEqual({ sources, portals: {} });
  });
});
