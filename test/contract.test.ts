/**
 * The published contract holds: real responses of every endpoint parse with
 * the (strict) response schemas the OpenAPI document is generated from, and
 * the document describes every endpoint, parameter, error and the key scheme.
 */
import type { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import {
  debtorAddressesRoute,
  debtorAssociatedRoute,
  debtorSearchRoute,
  debtorSimilarRoute,
} from "../src/routes/debtors.ts";
import {
  filingLookupRoute,
  recentByPostalCodeRoute,
  recentByStateRoute,
  recentlyTerminatedRoute,
} from "../src/routes/filings.ts";
import { recentBySecuredPartyRoute } from "../src/routes/secureds.ts";
import { daysAgo, filing, get, getJson, load, party, registerKeys } from "./helpers.ts";

beforeAll(async () => {
  await registerKeys();
  await load([
    filing({
      number: "C-1",
      debtors: [party("Contract Co LLC", { label: "Manufacturing" }), party("Carla Contract", { type: "Individual" })],
      amendments: [
        { number: "C-1-A", filedAt: daysAgo(5), kind: "assignment", description: "Assignment" },
        { number: "C-1-T", filedAt: daysAgo(2), kind: "termination", description: "Termination" },
      ],
    }),
  ]);
});

type Route = { path: string; responses: { 200: { content: { "application/json": { schema: z.ZodType } } } } };

const CASES: [Route, string][] = [
  [recentByStateRoute, "/filings/recent-by-state?state=CA"],
  [recentByPostalCodeRoute, "/filings/recent-by-postal-code?postal_code=94107"],
  [recentByPostalCodeRoute, "/filings/recent-by-postal-code?postal_code=94107&envelope=b"],
  [recentBySecuredPartyRoute, "/secureds/recent-by-secured-party?name=first%20test&state=CA"],
  [recentBySecuredPartyRoute, "/secureds/recent-by-secured-party?name=first%20test&state=CA&envelope=a"],
  [recentlyTerminatedRoute, "/filings/recently-terminated?state=CA"],
  [debtorSearchRoute, "/debtors/search?name=contract&state=CA"],
  [debtorAddressesRoute, "/debtors/addresses?name=contract"],
  [debtorAssociatedRoute, "/debtors/associated?name=contract&state=CA"],
  [debtorSimilarRoute, "/debtors/search-similar?name=Contrakt%20Co"],
  [filingLookupRoute, "/filings?initial_financing_number=C-1"],
];

describe("response contract", () => {
  it.each(CASES)("%s: a real, non-empty response parses with its published schema", async (route, path) => {
    const body = await getJson(path);
    const list = Object.values(body).find(Array.isArray) as unknown[];
    expect(list.length).toBeGreaterThan(0);
    const parsed = route.responses[200].content["application/json"].schema.safeParse(body);
    expect(parsed.error?.issues ?? []).toEqual([]);
  });
});

describe("the OpenAPI document", () => {
  let doc: any;
  beforeAll(async () => {
    const res = await get("/openapi.json", null);
    expect(res.status).toBe(200);
    doc = await res.json();
  });

  it("describes every endpoint with its parameters, responses and examples", () => {
    const routes = [...new Set(CASES.map(([route]) => route))];
    expect(Object.keys(doc.paths).sort()).toEqual(routes.map((r) => r.path).sort());
    for (const route of routes) {
      const op = doc.paths[route.path].get;
      expect(op.summary, route.path).toBeTruthy();
      expect(op.parameters.length, route.path).toBeGreaterThan(0);
      for (const p of op.parameters) expect(p.description, `${route.path} ${p.name}`).toBeTruthy();
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "400", "500", "503"]));
    }
    expect(JSON.stringify(doc)).toContain('"example"');
  });

  it("declares the x-api-key scheme on keyed endpoints and none on the public lookup", () => {
    expect(doc.components.securitySchemes.ApiKey).toEqual(
      expect.objectContaining({ type: "apiKey", in: "header", name: "x-api-key" }),
    );
    expect(doc.paths["/filings/recent-by-state"].get.security).toEqual([{ ApiKey: [] }]);
    expect(doc.paths["/filings/recent-by-state"].get.responses["401"]).toBeDefined();
    expect(doc.paths["/filings"].get.security).toEqual([]);
    expect(doc.paths["/filings"].get.responses["429"]).toBeDefined();
  });

  it("documents the error body shape with its codes", () => {
    const schema = doc.paths["/filings/recent-by-state"].get.responses["400"].content["application/json"].schema;
    expect(JSON.stringify(schema)).toContain("invalid_parameter");
    expect(JSON.stringify(schema)).toContain("service_unavailable");
  });

  it("serves a browsable reference at /docs without outside assets", async () => {
    const res = await get("/docs", null);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain("/docs/vendor/swagger-ui-bundle.js");
    expect(page).toContain("/docs/init.js");
    expect(page).not.toMatch(/https?:\/\//);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
  });
});
