/**
 * The endpoint registry (test/endpoints.ts) lists exactly the paths the app
 * serves, and says of each lookup what the OpenAPI document says: its
 * parameters, whether it needs a key, and whether it names a state. The
 * cross-cutting tests, the load test and the benchmark read their endpoint
 * lists from the registry, so this is what keeps a new endpoint from
 * skipping them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { ENDPOINTS, LOOKUPS, lookupOf, scopeOf } from "./endpoints.ts";
import { get } from "./helpers.ts";

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Operation {
  security: unknown[];
  parameters: (Parameter | { $ref: string })[];
}
let operations: Record<string, Operation>;

beforeAll(async () => {
  const doc = await (await get("/openapi.json", null)).json<{ paths: Record<string, { get: Operation }> }>();
  operations = Object.fromEntries(Object.entries(doc.paths).map(([path, item]) => [path, item.get]));
});

const queryParameters = (path: string) =>
  (operations[path]?.parameters ?? []).filter((p): p is Parameter => "in" in p && p.in === "query");

describe("the endpoint registry", () => {
  it("lists every path the app answers GET on, and no other", () => {
    const served = createApp()
      .routes.filter((r) => r.method === "GET" && r.path !== "/*")
      .map((r) => r.path);
    expect([...new Set(served)].sort()).toEqual(ENDPOINTS.map((e) => e.path).sort());
  });

  it("lists every documented operation as a lookup, and only those", () => {
    expect(Object.keys(operations).sort()).toEqual(LOOKUPS.map((e) => e.path).sort());
  });

  it.each(LOOKUPS.map((e) => [e.path, e] as const))("%s: access as documented", (path, e) => {
    expect(e.access).toBe(operations[path]!.security.length > 0 ? "key" : "public");
  });

  it.each(LOOKUPS.map((e) => [e.path, e] as const))(
    "%s: sample values for every parameter but page and cursor",
    (path, e) => {
      // A cursor is sealed to the list it came from: test/continuation.test.ts walks each list by it.
      const documented = queryParameters(path)
        .map((p) => p.name)
        .filter((name) => name !== "page" && name !== "cursor");
      expect(Object.keys(e.params).sort()).toEqual(documented.sort());
      for (const [name, values] of Object.entries(e.params)) expect(values.length, name).toBeGreaterThan(0);
    },
  );

  it.each(LOOKUPS.map((e) => [e.path, e] as const))("%s: scope follows its state parameter", (path, e) => {
    const state = queryParameters(path).find((p) => p.name === "state");
    expect(e.scope).toBe(state === undefined ? "all" : state.required ? "state" : "optional");
  });

  it.each(LOOKUPS.map((e) => [e.path, e] as const))("%s: every request in its lists calls it", (path, e) => {
    const picks = {
      states: ["CA"],
      zips: ["94107"],
      lenders: [{ name: "first test", state: "CA" }],
      debtors: [{ name: "Contract Co", state: "CA" }],
      linked: [{ name: "Contract Co", state: "CA" }],
      numbers: [{ number: "C-1", state: "CA" }],
    };
    const lists = { sample: e.sample, variants: e.variants, dense: e.dense, seeded: e.seeded, bench: e.bench(picks) };
    for (const [list, urls] of Object.entries(lists)) {
      expect(urls.length, list).toBeGreaterThan(0);
      for (const url of urls) {
        expect(lookupOf(url)?.path, `${list}: ${url}`).toBe(path);
        if (Object.keys(e.params).length > 0) expect(url, `${list}: ${url}`).toContain("?");
      }
    }
  });

  it("tells single-state requests from those that span states", () => {
    expect(scopeOf("/filings/recent-by-state?state=CA")).toBe("state");
    expect(scopeOf("/debtors/addresses?name=x")).toBe("all");
    expect(scopeOf("/debtors/search-similar?name=x&state=CA")).toBe("state");
    expect(scopeOf("/filings?initial_financing_number=1")).toBe("all");
  });
});
