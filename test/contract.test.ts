/**
 * The published contract holds: every response these tests provoke, from
 * every endpoint and with every status the server sends (200, 304, 400, 401,
 * 404, 405, 429, 500, 503), validates against the OpenAPI document the
 * Worker serves: its status is declared for the operation (or covered by
 * `default`), each of the API's headers it carries is declared, each
 * required header is present, header values and the body match their
 * schemas, and an error's code is one the status's examples show. Bodies
 * also parse with the strict zod schemas the document is generated from.
 */

import { env } from "cloudflare:workers";
import { Validator } from "@cfworker/json-schema";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app.ts";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";
import { INDUSTRIES } from "../src/domain/industries.ts";
import { STATE_CODES } from "../src/domain/states.ts";
import { reportRoute } from "../src/report/route.ts";
import { filingLookupRoute } from "../src/routes/filings.ts";
import { changesRoute } from "../src/routes/monitoring.ts";
import { LOOKUPS, sampleFilings } from "./endpoints.ts";
import { daysAgo, envWithShards, get, load, registerKeys, TEST_KEY, testAddress } from "./helpers.ts";

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as plain JSON, its shape checked by the assertions.
type Json = any;
type Route = {
  path: string;
  request: { query: { shape: Record<string, { safeParse(v: unknown): { success: boolean } }> } };
  responses: {
    200: { content: { "application/json": { schema: { safeParse(v: unknown): { error?: { issues: unknown[] } } } } } };
  };
};

/** The headers this API sets on purpose; generic ones (CORS, security, Content-Type) are not per operation. */
const API_HEADERS = [
  "x-request-id",
  "etag",
  "cache-control",
  "vary",
  "x-d1-bookmark",
  "retry-after",
  "www-authenticate",
  "allow",
  "server-timing",
  "x-cache",
  "x-report-id",
  "x-report-generated-at",
  "link",
];

/** Every lookup's sample requests, which answer data over sampleFilings() (test/endpoints.ts). */
const CASES: [Route, string][] = LOOKUPS.flatMap((e) => e.sample.map((url): [Route, string] => [e.route, url]));
const ROUTES = [...new Set(CASES.map(([route]) => route))];
const KEYED = CASES.filter(([route]) => LOOKUPS.find((e) => e.route === route)?.access === "key");

let doc: Json;

beforeAll(async () => {
  await registerKeys();
  await load(sampleFilings());
  doc = await (await get("/openapi.json", null)).json();
});

/** Follows a local `$ref` ("#/components/..."). */
function resolve(node: Json): Json {
  if (!node?.$ref) return node;
  return resolve(
    node.$ref
      .slice(2)
      .split("/")
      .reduce((at: Json, key: string) => at[key], doc),
  );
}

function validate(schema: Json, value: unknown): string[] {
  // The schema travels with the document's components, so its $refs resolve.
  const root = { ...schema, components: { schemas: doc.components.schemas } };
  const result = new Validator(root, "2020-12", false).validate(value);
  return result.errors.map((e) => `${e.instanceLocation} ${e.error}`);
}

/** The documented response for `status` of GET `path` (its `default` when the status is not listed). */
function documented(path: string | null, status: number): Json {
  if (path === null) return resolve(doc.components.responses.OtherError);
  const responses = doc.paths[path].get.responses;
  const response = responses[String(status)] ?? responses.default;
  expect(response, `${status} of GET ${path}`).toBeDefined();
  return resolve(response);
}

/** Checks one response against the document; `path` is its operation's path (null: no operation). */
async function expectDocumented(res: Response, path: string | null): Promise<Json> {
  const where = `${res.status} of ${path ?? "an unknown path"}`;
  const spec = documented(path, res.status);
  const declared = new Map(
    Object.entries(spec.headers ?? {}).map(([name, header]) => [name.toLowerCase(), resolve(header)]),
  );
  for (const name of API_HEADERS) {
    const value = res.headers.get(name);
    if (value === null) continue;
    const header = declared.get(name);
    expect(header, `${name} is sent on ${where} but not declared`).toBeDefined();
    const typed = header.schema.type === "integer" ? Number(value) : value;
    expect(validate(header.schema, typed), `${name}: ${value} on ${where}`).toEqual([]);
  }
  for (const [name, header] of declared) {
    if (header.required) expect(res.headers.get(name), `${name} is required on ${where}`).not.toBeNull();
  }

  const text = await res.text();
  if (!spec.content) {
    expect(text, `${where} has no documented body`).toBe("");
    return undefined;
  }
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  const media = spec.content["application/json"];
  expect(validate(media.schema, body), where).toEqual([]);
  if (res.status !== 200) {
    // The status's examples are keyed by the codes it carries.
    expect(Object.keys(media.examples ?? {}), where).toContain(body.error.code);
  }
  return body;
}

describe("successful responses", () => {
  it.each(CASES.map(([route, url]) => [url, route] as const))(
    "%s: a real, non-empty answer, a cache hit and a 304 all match the document",
    async (url, route) => {
      const miss = await get(url);
      if (route !== reportRoute) expect(miss.headers.get("x-cache")).toBe("miss");
      const body = await expectDocumented(miss, route.path);
      expect((Object.values(body).find(Array.isArray) as unknown[]).length).toBeGreaterThan(0);
      const parsed = route.responses[200].content["application/json"].schema.safeParse(body);
      expect(parsed.error?.issues ?? []).toEqual([]);

      // A lien report is made for its moment and never kept: no cache, no ETag.
      if (route === reportRoute) {
        expect(miss.headers.get("cache-control")).toBe("private, no-store");
        expect(miss.headers.get("etag")).toBeNull();
      } else {
        // The change feed is never served from the edge cache (it must show the last load at once).
        if (route !== changesRoute) {
          await get(url);
          const hit = await get(url);
          expect(hit.headers.get("x-cache")).toBe("hit");
          await expectDocumented(hit, route.path);
        }

        const etag = miss.headers.get("etag")!;
        const notModified = await get(url, TEST_KEY, { headers: { "if-none-match": etag } });
        expect(notModified.status).toBe(304);
        await expectDocumented(notModified, route.path);
      }

      // Read at the bookmark of the first answer.
      const bookmark = miss.headers.get("x-d1-bookmark");
      const consistent = await get(url, TEST_KEY, { headers: bookmark ? { "x-d1-bookmark": bookmark } : {} });
      expect(consistent.status).toBe(200);
      await expectDocumented(consistent, route.path);
    },
  );
});

describe("error responses", () => {
  it.each(CASES.map(([route, url]) => [url, route] as const))(
    "%s: a 400 for an invalid parameter and for a malformed bookmark",
    async (url, route) => {
      await expectDocumented(await get(`${url}&page=0`), route.path);
      await expectDocumented(await get(url, TEST_KEY, { headers: { "x-d1-bookmark": "not-a-bookmark" } }), route.path);
    },
  );

  it.each(KEYED.map(([route, url]) => [url, route] as const))(
    "%s: 401 without a key and with an unknown one",
    async (url, route) => {
      const missing = await get(url, null);
      expect(missing.status).toBe(401);
      expect((await expectDocumented(missing, route.path)).error.code).toBe("missing_api_key");
      const unknown = await get(url, "not-a-key");
      expect(unknown.status).toBe(401);
      expect((await expectDocumented(unknown, route.path)).error.code).toBe("invalid_api_key");
    },
  );

  it.each(ROUTES.map((r) => [r.path]))("%s: 405 for another method, under `default`", async (path) => {
    const res = await get(path, TEST_KEY, { method: "POST" });
    expect(res.status).toBe(405);
    await expectDocumented(res, path);
  });

  it("404 for an unknown path, as the shared `default` response says", async () => {
    const res = await get("/no/such/path");
    expect(res.status).toBe(404);
    await expectDocumented(res, null);
  });

  it("429 on the public lookup, per client address", async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 130 && !limited; i++) {
      const res = await get("/filings?initial_financing_number=C-1", null, {
        headers: { "cf-connecting-ip": testAddress(12) },
      });
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    expect(limited, "never limited").toBeDefined();
    await expectDocumented(limited!, "/filings");
  });

  it("429 on a keyed lookup, per key", async () => {
    const key = "contract-rate-key";
    const metadata: KeyMetadata = { label: "contract rate", created: daysAgo(1), status: "active" };
    await env.API_KEYS.put(await hashKey(key), "", { metadata });
    let limited: Response | undefined;
    // Invalid pages are refused before any database work, so the run is cheap.
    for (let i = 0; i < 1300 && !limited; i++) {
      const res = await get("/filings/recent-by-state?state=CA&page=0", key);
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    expect(limited, "never limited").toBeDefined();
    await expectDocumented(limited!, "/filings/recent-by-state");
  });

  it("500 for an unexpected fault", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const broken = envWithShards(
      () =>
        ({
          withSession() {
            throw new TypeError("not a D1 failure");
          },
        }) as unknown as D1Database,
    );
    const res = await createApp().request(
      "/filings/recent-by-state?state=CA&fault=1",
      { headers: { "x-api-key": TEST_KEY } },
      broken,
    );
    errors.mockRestore();
    expect(res.status).toBe(500);
    await expectDocumented(res, "/filings/recent-by-state");
  });

  it("503 when the key store or the database is down", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const noKv = { ...env, API_KEYS: { getWithMetadata: () => Promise.reject(new Error("KV unavailable")) } };
    const kvDown = await createApp().request(
      "/filings/recent-by-state?state=CA",
      { headers: { "x-api-key": "contract-unseen-key" } },
      noKv,
    );
    const failing = {
      prepare: () => {
        throw new Error("D1_ERROR: SQLITE_BUSY");
      },
      batch: () => Promise.reject(new Error("D1_ERROR: SQLITE_BUSY")),
      withSession() {
        return this;
      },
    };
    const dbDown = await createApp().request(
      "/debtors/search?name=contract&state=CA&fault=2",
      { headers: { "x-api-key": TEST_KEY } },
      envWithShards(() => failing as unknown as D1Database),
    );
    errors.mockRestore();
    expect([kvDown.status, dbDown.status]).toEqual([503, 503]);
    await expectDocumented(kvDown, "/filings/recent-by-state");
    await expectDocumented(dbDown, "/debtors/search");
  });
});

describe("the OpenAPI document", () => {
  it("names every operation and gives each its parameters, statuses and headers", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(ROUTES.map((r) => r.path).sort());
    const ids = ROUTES.map((r) => doc.paths[r.path].get.operationId);
    expect(new Set(ids).size).toBe(ROUTES.length);
    for (const route of ROUTES) {
      const op = doc.paths[route.path].get;
      expect(op.operationId, route.path).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, route.path).toBeTruthy();
      const params = op.parameters.map(resolve);
      for (const p of params) expect(p.description, `${route.path} ${p.name}`).toBeTruthy();
      // A lien report is never the same twice (its id and time): no ETag to send back, no 304.
      const revalidated = route !== reportRoute;
      expect(params.filter((p: Json) => p.in === "header").map((p: Json) => p.name)).toEqual([
        ...(revalidated ? ["If-None-Match"] : []),
        "x-d1-bookmark",
      ]);
      const statuses = ["200", "400", "429", "500", "503", "default", ...(revalidated ? ["304"] : [])];
      if (route !== filingLookupRoute) statuses.push("401");
      if (route === changesRoute) statuses.push("410");
      expect(Object.keys(op.responses).sort()).toEqual(statuses.sort());
    }
  });

  it("declares HEAD beside every GET: the same parameters and statuses, each with its headers and no body", () => {
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      const { get, head } = item;
      expect(head, path).toBeDefined();
      expect(head.operationId).toBe(`head${get.operationId[0].toUpperCase()}${get.operationId.slice(1)}`);
      expect(head.parameters).toEqual(get.parameters);
      expect(head.security).toEqual(get.security);
      expect(Object.keys(head.responses)).toEqual(Object.keys(get.responses));
      for (const [status, response] of Object.entries<Json>(head.responses)) {
        expect(response.content, `${path} HEAD ${status}`).toBeUndefined();
        expect(response.headers).toEqual(resolve(get.responses[status]).headers);
      }
    }
    expect(Object.keys(doc.paths)).toContain("/debtors/associated/");
  });

  it("declares the x-api-key scheme on keyed operations and none on the public lookup", () => {
    expect(doc.components.securitySchemes.ApiKey).toEqual(
      expect.objectContaining({ type: "apiKey", in: "header", name: "x-api-key" }),
    );
    expect(doc.paths["/filings/recent-by-state"].get.security).toEqual([{ ApiKey: [] }]);
    expect(doc.paths["/filings"].get.security).toEqual([]);
  });

  it("names the shared shapes, and tells the envelopes apart by `pagination`", () => {
    const schemas = doc.components.schemas;
    for (const name of ["LienA", "LienB", "AddressA", "AddressB", "PartyB", "Amendment", "Pagination", "ErrorBody"]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(schemas.ErrorCode.enum).toContain("rate_limited");
    expect(schemas.LienPageA.required).toContain("pagination");
    expect(schemas.LienPageB.properties.pagination).toBeUndefined();
    expect(schemas.LienPageB.additionalProperties).toBe(false);
    const union = doc.paths["/filings/recent-by-postal-code"].get.responses["200"].content["application/json"].schema;
    expect(union.oneOf).toEqual([
      { $ref: "#/components/schemas/LienPageA" },
      { $ref: "#/components/schemas/LienPageB" },
    ]);
    // Generated clients see inline shapes as anonymous types: none of the shared ones is repeated.
    expect(JSON.stringify(doc.paths)).not.toContain('"street1"');
  });

  it("gives every error example a body the ErrorBody schema accepts", () => {
    const examples = Object.entries(doc.components.examples);
    expect(examples.map(([, e]: [string, Json]) => e.value.error.code).sort()).toEqual(
      [...doc.components.schemas.ErrorCode.enum].sort(),
    );
    for (const [name, example] of examples as [string, Json][]) {
      expect(validate({ $ref: "#/components/schemas/ErrorBody" }, example.value), name).toEqual([]);
    }
  });

  it("describes parameters as the server takes them", () => {
    const param = (path: string, name: string) =>
      doc.paths[path].get.parameters.map(resolve).find((p: Json) => p.name === name);
    const state = param("/filings/recent-by-state", "state");
    expect(validate(state.schema, "ca")).toEqual([]);
    expect(param("/filings/recent-by-state", "page").schema).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 10_000,
      default: 1,
    });
    expect(param("/filings/recent-by-postal-code", "envelope").schema).toMatchObject({ default: "a" });
    expect(param("/secureds/recent-by-secured-party", "envelope").schema).toMatchObject({ default: "b" });
    expect(param("/filings/recent-by-state", "industry")).toMatchObject({ style: "form", explode: false });
    expect(validate(param("/filings/recent-by-postal-code", "postal_code").schema, "94107-1234")).toEqual([]);
    expect(validate(param("/filings/recent-by-postal-code", "postal_code").schema, "9410")).not.toEqual([]);
    // Optional filters carry no example, so "Try it out" does not narrow results unasked.
    for (const [path, name] of [
      ["/filings/recent-by-state", "industry"],
      ["/secureds/recent-by-secured-party", "borrower_type"],
      ["/debtors/search-similar", "state"],
      ["/filings", "state"],
    ] as const) {
      const p = param(path, name);
      expect(p.example ?? p.schema.example, `${path} ${name}`).toBeUndefined();
    }
    expect(param("/debtors/search-similar", "name").description).not.toMatch(/exact/i);
  });

  it("admits exactly the spellings of a choice that the server accepts: any case, spaces around it", () => {
    /**
     * Each value, in other cases and with spaces, beside near misses. Not the
     * empty value, which an optional parameter takes as absent (docs/api/requests.md)
     * and the document leaves out: a client sends nothing instead.
     */
    const spellings = (values: readonly string[]) =>
      values
        .flatMap((v) => [
          v,
          v.toLowerCase(),
          v.toUpperCase(),
          [...v].map((ch, i) => (i % 2 ? ch.toLowerCase() : ch.toUpperCase())).join(""),
          ` ${v}\t`,
          `${v}x`,
          v.slice(1),
          v.replace(" ", ""),
          `${v},${v}`,
        ])
        .filter((value) => value !== "");
    const choices = [
      ["/filings/recent-by-state", "state", STATE_CODES],
      ["/debtors/search-similar", "state", ["ZZ", "C", "CAL"]],
      ["/secureds/recent-by-secured-party", "borrower_type", ["Organization", "Individual", "Secured Party"]],
      ["/secureds/recent-by-secured-party", "envelope", ["a", "b", "c", "ab"]],
      ["/filings/recent-by-state", "industry", [...INDUSTRIES, "Widgets", "Real  Estate"]],
    ] as const;
    for (const [path, name, values] of choices) {
      const route = ROUTES.find((r) => r.path === path)!;
      const server = route.request.query.shape[name]!;
      const documented = doc.paths[path].get.parameters.map(resolve).find((p: Json) => p.name === name).schema;
      // A list parameter's items are its choices: one item stands for the list.
      const schema = documented.type === "array" ? documented.items : documented;
      for (const value of spellings(values)) {
        const admitted = validate(schema, value).length === 0;
        expect(admitted, `${path} ${name}=${JSON.stringify(value)}`).toBe(server.safeParse(value).success);
      }
    }
  });

  it("is served with relative servers, whatever the Host, and with a tag for conditional requests", async () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: "/" })]);
    const res = await get("/openapi.json", null, { headers: { host: "evil.example" } });
    expect(JSON.stringify((await res.json<Json>()).servers)).not.toContain("evil.example");
    const etag = res.headers.get("etag")!;
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect((await get("/openapi.json", null, { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  it("is built once per isolate, not per request", async () => {
    const app = createApp();
    const build = vi.spyOn(app, "getOpenAPI31Document");
    const first = await (await app.request("/openapi.json")).text();
    const second = await (await app.request("/openapi.json")).text();
    expect(build).toHaveBeenCalledTimes(1);
    expect(second).toBe(first);
  });

  it("serves a browsable reference at /docs without outside assets", async () => {
    const res = await get("/docs", null);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain("/docs/vendor/swagger-ui-bundle.js");
    expect(page).toContain("/docs/init.js");
    expect(page).not.toMatch(/https?:\/\//);
    const policy = res.headers.get("content-security-policy")?.split(/;\s*/);
    expect(policy).toEqual(expect.arrayContaining(["default-src 'self'", "base-uri 'none'", "form-action 'self'"]));
  });

  it("serves the console at /console: this origin's script and stylesheet, under a policy without inline code or eval", async () => {
    const res = await get("/console", null);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('<script type="module" src="/console/console.js"></script>');
    expect(page).toContain('<link rel="stylesheet" href="/console/console.css" />');
    // Every script names its file: none is inline.
    expect(page.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="/console/console.js">']);
    expect(page).not.toMatch(/https?:\/\/|style=/);
    const policy = res.headers.get("content-security-policy")?.split(/;\s*/);
    expect(policy).toEqual(
      expect.arrayContaining([
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "require-trusted-types-for 'script'",
      ]),
    );
    expect(policy?.join("; ")).not.toMatch(/unsafe|\*/);
    expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin");
  });

  it("answers / with a small JSON index pointing at the reference, the document and the console", async () => {
    const res = await get("/", null);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      name: "Lien Filing Lookup API",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      description: expect.any(String),
      links: { docs: "/docs", openapi: "/openapi.json", console: "/console" },
    });
  });
});
