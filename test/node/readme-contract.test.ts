/**
 * The README's requests, replayed against the real Worker (`wrangler dev`
 * over the seeded data, test/node/devWorker.ts) as a gateway that validates
 * by the served /openapi.json sees them. openapi-backend, in strict mode and
 * without its trailing-slash leniency, routes each request by the document
 * and validates it (path, method, query, headers); then each answer's
 * status must be declared for the operation, its headers and body must
 * match, and where the document declares no body (HEAD, 304) there is none,
 * nor any header describing one.
 * Each request is sent as GET, revalidated with its ETag twice (the first
 * 304 misses the edge cache, the second hits it) when the document declares
 * one, and sent as HEAD. Any violation fails.
 */
import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import OpenAPIBackend, { type Document, type Operation } from "openapi-backend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevWorker, LOCAL_DEV_KEY, startDevWorker } from "./devWorker.ts";

/** Every `curl` of the README: its URL, and whether it sends the key. */
const README_REQUESTS = [
  ...readFileSync("README.md", "utf8").matchAll(/^curl (-H "\$KEY" )?'http:\/\/localhost:8787([^']+)'$/gm),
].map((m) => ({ url: m[2] ?? "", keyed: m[1] !== undefined }));

/**
 * openapi-backend, strict. It checks a document against the OpenAPI 3.0
 * schema only, so this 3.1 one is checked against 3.1's schema instead
 * (as test/node/openapi.test.ts does); requests and responses are then
 * validated by openapi-backend's own machinery.
 */
class Gateway extends OpenAPIBackend {
  override validateDefinition(): Document {
    return this.document;
  }
}

let worker: DevWorker;
let api: Gateway;
// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON, checked by the validator.
let doc: any;

beforeAll(async () => {
  worker = await startDevWorker();
  doc = await (await fetch(`${worker.base}/openapi.json`)).json();
  const valid = await new Validator().validate(structuredClone(doc));
  expect(valid.errors ?? []).toEqual([]);
  api = new Gateway({ definition: doc as Document, strict: true, ignoreTrailingSlashes: false });
  await api.init();
}, 180_000);

afterAll(async () => {
  await worker?.stop();
});

/** The headers a body-less answer does not carry: they describe a body (RFC 9110 §15.4.5). */
const CONTENT_HEADERS = ["content-type", "content-length", "content-encoding"];

interface Sent {
  method: "GET" | "HEAD";
  url: string;
  headers: Record<string, string>;
}

/** Validates the request as a gateway would before passing it on; returns the operation it routes to. */
function checkRequest(sent: Sent): Operation {
  const [path = "", query = ""] = sent.url.split("?");
  const request = { method: sent.method.toLowerCase(), path, query, headers: sent.headers };
  const operation = api.matchOperation(request);
  expect(operation, `${sent.method} ${path} is not in the document`).toBeDefined();
  const result = api.validateRequest(request, operation);
  expect(result.errors ?? [], `${sent.method} ${sent.url}`).toEqual([]);
  return operation as Operation;
}

/** Sends the request and validates the answer against `operation`; returns it with its body text. */
async function checkResponse(sent: Sent, operation: Operation): Promise<{ res: Response; text: string }> {
  // Uncompressed: under wrangler dev, Miniflare's entry Worker mimics Cloudflare's compression and
  // labels even a bodiless 304 `Content-Encoding: gzip` for a client that accepts gzip. The Worker
  // itself sends none (test/caching.test.ts); in production the edge compresses.
  const uncompressed = { ...sent.headers, "accept-encoding": "identity" };
  const res = await fetch(`${worker.base}${sent.url}`, { method: sent.method, headers: uncompressed });
  const text = await res.text();
  const where = `${res.status} to ${sent.method} ${sent.url}`;
  const responses = operation.responses ?? {};
  const declared = (responses[String(res.status)] ?? responses.default) as
    | { headers?: Record<string, { required?: boolean }>; content?: unknown }
    | undefined;
  expect(declared, `${where} is not declared`).toBeDefined();
  const headers = Object.fromEntries(res.headers);
  const headerCheck = api.validateResponseHeaders(headers, operation, { statusCode: res.status });
  expect(headerCheck.errors ?? [], where).toEqual([]);
  for (const [name, header] of Object.entries(declared?.headers ?? {})) {
    if (header.required) expect(res.headers.get(name), `${name} is required on ${where}`).not.toBeNull();
  }
  if (declared?.content === undefined) {
    expect(text, `${where} declares no body`).toBe("");
    for (const name of CONTENT_HEADERS) expect(res.headers.get(name), `${name} on ${where}`).toBeNull();
  } else {
    expect(res.headers.get("content-type"), where).toMatch(/^application\/json/);
    const bodyCheck = api.validateResponse(JSON.parse(text), operation, res.status);
    expect(bodyCheck.errors ?? [], where).toEqual([]);
  }
  return { res, text };
}

describe("the README's requests, through a gateway validating by /openapi.json", () => {
  it("finds every curl of the README, the trailing-slash co-borrowers path and the report among them", () => {
    expect(README_REQUESTS.length).toBeGreaterThanOrEqual(10);
    expect(README_REQUESTS.map((r) => r.url.split("?")[0])).toContain("/debtors/associated/");
    expect(README_REQUESTS.map((r) => r.url.split("?")[0])).toContain("/debtors/report");
    expect(README_REQUESTS.some((r) => !r.keyed)).toBe(true);
  });

  it.each(README_REQUESTS)("$url: GET, its revalidations and HEAD pass, with data", async ({ url, keyed }) => {
    const headers: Record<string, string> = keyed ? { "x-api-key": LOCAL_DEV_KEY } : {};
    const get: Sent = { method: "GET", url, headers };
    const operation = checkRequest(get);

    const first = await checkResponse(get, operation);
    expect(first.res.status).toBe(200);
    const body = JSON.parse(first.text) as Record<string, unknown>;
    expect((Object.values(body).find(Array.isArray) ?? []).length, "the seeded data answers it").toBeGreaterThan(0);

    // Revalidation: the first 304 is read from D1 (and stored), the second served from the edge cache;
    // the change feed is never stored (docs/monitoring.md), so both of its 304s are read from D1.
    // An answer made for its moment declares no ETag (the lien report: docs/api/lien-report.md) and has none.
    const etag = first.res.headers.get("etag");
    const ok = operation.responses?.["200"] as { headers?: Record<string, unknown> } | undefined;
    const declaresEtag = Object.keys(ok?.headers ?? {}).some((h) => /^etag$/i.test(h));
    if (!declaresEtag) expect(etag, `${url} declares no ETag`).toBeNull();
    else {
      const conditional: Sent = { method: "GET", url, headers: { ...headers, "if-none-match": etag ?? "" } };
      checkRequest(conditional);
      for (const cache of url.startsWith("/filings/changes") ? ["miss", "miss"] : ["miss", "hit"]) {
        const { res } = await checkResponse(conditional, operation);
        expect([res.status, res.headers.get("x-cache")]).toEqual([304, cache]);
      }
    }

    const head: Sent = { method: "HEAD", url, headers };
    const headOperation = checkRequest(head);
    expect(headOperation.method).toBe("head");
    const answered = await checkResponse(head, headOperation);
    expect(answered.res.status).toBe(200);
  });
});

describe("other methods and static files under wrangler dev", () => {
  it("answers a method outside the document with the JSON 405 the document's default declares", async () => {
    const { url, keyed } = README_REQUESTS[0]!;
    const headers: Record<string, string> = keyed ? { "x-api-key": LOCAL_DEV_KEY } : {};
    const operation = checkRequest({ method: "GET", url, headers });
    for (const method of ["POST", "DELETE", "PROPFIND", "QUERY"]) {
      const res = await fetch(`${worker.base}${url}`, { method, headers });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
      expect(api.validateResponse(await res.json(), operation, 405).errors ?? []).toEqual([]);
    }
  });

  it("serves the static files with the API's security headers", async () => {
    const json = await fetch(`${worker.base}${README_REQUESTS.find((r) => !r.keyed)?.url}`);
    for (const path of ["/favicon.ico", "/docs/init.js"]) {
      const res = await fetch(`${worker.base}${path}`);
      expect(res.status, path).toBe(200);
      for (const name of ["x-content-type-options", "content-security-policy", "strict-transport-security"]) {
        expect(res.headers.get(name), `${name} on ${path}`).toBe(json.headers.get(name));
      }
    }
  });
});
