/**
 * The reference page's "Try it out" examples are real: over the data
 * `npm start` seeds (seed/seed.ts's defaults: 20,000 filings from seed
 * 20250908, dated from today, and a day's delta over them), every operation called with exactly the
 * example values the OpenAPI document gives answers a non-empty list.
 * Required parameters have an example; optional ones have none, so the page
 * does not narrow results the reader did not ask to narrow.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateDelta, generateFilings } from "../seed/generate.ts";
import { withMetadata } from "./bodies.ts";
import { LOOKUPS } from "./endpoints.ts";
import { get, getJson, load, loadDelta, registerKeys } from "./helpers.ts";

/** seed/seed.ts's defaults, which `npm start` uses. */
const SEEDED = { filings: 20_000, seed: 20250908 };

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as plain JSON, its shape checked by contract.test.ts.
let doc: any;

beforeAll(async () => {
  await registerKeys();
  const now = Date.now();
  await load([...generateFilings({ ...SEEDED, now })]);
  // seed/seed.ts then loads a day's delta: the change feed's first changes.
  await loadDelta([...generateDelta({ ...SEEDED, now })]);
  doc = await (await get("/openapi.json", null)).json();
}, 180_000);

/** Every documented operation (test/endpoints.ts). */
const PATHS = LOOKUPS.map((e) => e.path);

describe("the document's examples, on the seeded data", () => {
  it("covers every operation", () => {
    expect(Object.keys(doc.paths).sort()).toEqual([...PATHS].sort());
  });

  it.each(PATHS)("%s with its examples returns data", async (path) => {
    const query = new URLSearchParams();
    for (const param of doc.paths[path].get.parameters) {
      if (param.$ref || param.in !== "query") continue;
      const example = param.example ?? param.schema.example;
      if (param.required) {
        expect(example, `${path} ${param.name}`).toBeDefined();
        query.set(param.name, String(example));
      } else {
        expect(example, `${path} ${param.name} is optional`).toBeUndefined();
      }
    }
    const body = withMetadata.parse(await getJson(`${path}?${query}`));
    const list = Object.values(body).find(Array.isArray) as unknown[];
    expect(list.length, `${path}?${query}`).toBeGreaterThan(0);
  });
});

describe("the registry's requests for the seeded data (test/endpoints.ts, used by the load test)", () => {
  it.each(LOOKUPS.flatMap((e) => e.seeded))("%s returns data", async (path) => {
    const body = withMetadata.parse(await getJson(path));
    const list = Object.values(body).find(Array.isArray) as unknown[];
    expect(list.length, path).toBeGreaterThan(0);
  });
});
