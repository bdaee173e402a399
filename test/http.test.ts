import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import staticHeaders from "../public/_headers?raw";
import { createApp } from "../src/app.ts";
import { DB_TIMEOUT_MS } from "../src/http/d1.ts";
import type { ErrorBody } from "./bodies.ts";
import { LOOKUPS, sampleFilings } from "./endpoints.ts";
import { envWithShards, filing, get, getJson, load, REVOKED_KEY, registerKeys, shards, TEST_KEY } from "./helpers.ts";

/** Each keyed endpoint's plain request (test/endpoints.ts). */
const PATHS = LOOKUPS.filter((e) => e.access === "key").map((e) => e.sample[0]!);

/** A URL no earlier request used, so the edge cache cannot answer it. */
let fresh = 0;
const uncached = () => `${PATHS[0]}&uncached=${++fresh}`;

beforeAll(async () => {
  await registerKeys();
  await load([filing(), ...sampleFilings()]);
});

describe("authentication", () => {
  it.each(PATHS)("refuses %s without a key (401 missing_api_key)", async (path) => {
    const res = await get(path, null);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("x-api-key");
    expect((await res.json<ErrorBody>()).error.code).toBe("missing_api_key");
  });

  it.each([
    ["an unknown key", "not-a-real-key"],
    ["a revoked key", REVOKED_KEY],
    ["an overlong key", "k".repeat(300)],
  ])("refuses %s (401 invalid_api_key)", async (_, key) => {
    const body = await getJson(PATHS[0]!, 401, key);
    expect(body.error.code).toBe("invalid_api_key");
  });

  it.each(PATHS)("serves %s with a valid key", async (path) => {
    expect((await get(path, TEST_KEY)).status).toBe(200);
  });

  it("fails closed with a 503 and Retry-After when the key store is down", async () => {
    const broken = { ...env, API_KEYS: { getWithMetadata: () => Promise.reject(new Error("KV unavailable")) } };
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    // A key this isolate has not looked up yet, so KV is really asked.
    const res = await createApp().request(PATHS[0]!, { headers: { "x-api-key": "never-seen-key" } }, broken);
    errors.mockRestore();
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect((await res.json<ErrorBody>()).error.code).toBe("service_unavailable");
  });
});

describe("database faults", () => {
  it("answers 503 with Retry-After, and logs one line with the request id and no SQL", async () => {
    const failing = {
      prepare: () => {
        throw new Error("D1_ERROR: select * from filings: SQLITE_BUSY");
      },
      batch: () => Promise.reject(new Error("D1_ERROR: select * from filings: SQLITE_BUSY")),
      withSession() {
        return this;
      },
    };
    const lines: string[] = [];
    const errors = vi.spyOn(console, "error").mockImplementation((line: string) => lines.push(line));
    const res = await createApp().request(
      uncached(),
      { headers: { "x-api-key": TEST_KEY } },
      envWithShards(() => failing as unknown as D1Database),
    );
    errors.mockRestore();
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    const body = await res.text();
    expect(body).not.toMatch(/select|SQLITE/i);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      level: "error",
      request_id: res.headers.get("x-request-id"),
      event: "d1_failure",
      error: "Error",
      code: "SQLITE_BUSY",
    });
    expect(lines[0]).not.toMatch(/select/i);
  });
});

describe("database timeouts", () => {
  it("answers 503 when D1 does not answer in time", async () => {
    const hanging = {
      prepare: env.DB.prepare.bind(env.DB),
      batch: () => new Promise(() => {}),
      withSession() {
        return this;
      },
    };
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.useFakeTimers();
    const pending = createApp().request(
      uncached(),
      { headers: { "x-api-key": TEST_KEY } },
      envWithShards(() => hanging as unknown as D1Database),
    );
    await vi.advanceTimersByTimeAsync(DB_TIMEOUT_MS + 1);
    const res = await pending;
    vi.useRealTimers();
    const logged = errors.mock.calls.map((call) => JSON.parse(String(call[0])));
    errors.mockRestore();
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(logged).toEqual([expect.objectContaining({ event: "d1_failure", error: "DbTimeout" })]);
  });
});

/**
 * Whether a logged line is a request's: the runtime a file shares with the
 * files before it may still be running their background work (a queue's
 * webhook dispatch, a Workflow's pull), which logs lines of its own.
 */
const requestLine = (line: string) => (JSON.parse(line) as { event?: string }).event === "request";

describe("request logs", () => {
  it("writes one JSON line per request with id, route, status, timing, rows read and key label, never the key", async () => {
    const lines: string[] = [];
    const info = vi.spyOn(console, "info").mockImplementation((line: string) => requestLine(line) && lines.push(line));
    const ok = await get(uncached(), TEST_KEY);
    const refused = await get(uncached(), REVOKED_KEY);
    info.mockRestore();
    expect(lines).toHaveLength(2);
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first).toEqual({
      level: "info",
      request_id: ok.headers.get("x-request-id"),
      event: "request",
      method: "GET",
      route: "/filings/recent-by-state",
      status: 200,
      duration_ms: expect.any(Number),
      d1_ms: expect.any(Number),
      d1_shards: 1,
      rows_read: expect.any(Number),
      key_label: "test active",
    });
    expect(first.rows_read).toBeGreaterThan(0);
    expect(second).toMatchObject({ status: 401, request_id: refused.headers.get("x-request-id"), key_label: null });
    expect(lines.join("\n")).not.toContain(TEST_KEY);
    expect(lines.join("\n")).not.toContain(REVOKED_KEY);
  });

  it("samples successful requests at REQUEST_LOG_SAMPLE, saying the rate, and always logs failed ones", async () => {
    const app = createApp();
    const lines: Record<string, unknown>[] = [];
    const info = vi
      .spyOn(console, "info")
      .mockImplementation((line: string) => requestLine(line) && lines.push(JSON.parse(line)));
    const random = vi.spyOn(Math, "random");
    const send = (sample: string, key: string) =>
      app.request(uncached(), { headers: { "x-api-key": key } }, { ...env, REQUEST_LOG_SAMPLE: sample });
    try {
      random.mockReturnValue(0.3);
      expect((await send("0.25", TEST_KEY)).status).toBe(200);
      expect((await send("0", TEST_KEY)).status).toBe(200);
      expect(lines).toEqual([]);
      random.mockReturnValue(0.2);
      expect((await send("0.25", TEST_KEY)).status).toBe(200);
      expect((await send("0", REVOKED_KEY)).status).toBe(401);
      // Not a rate between 0 and 1: every request, as when unset.
      expect((await send("lots", TEST_KEY)).status).toBe(200);
    } finally {
      random.mockRestore();
      info.mockRestore();
    }
    expect(lines.map((l) => [l.status, l.sample_rate])).toEqual([
      [200, 0.25],
      [401, undefined],
      [200, undefined],
    ]);
  });

  it("reports D1 time and rows read in Server-Timing", async () => {
    const res = await get(uncached());
    expect(res.headers.get("server-timing")).toMatch(/^d1;dur=\d+;desc="1 batch, \d+ rows read"$/);
  });

  it("reports, for a request read from several shards, how many and the most rows one of them read", async () => {
    const res = await get(`/filings/recent-by-postal-code?postal_code=94107&run=${Date.now()}`);
    const timing = res.headers.get("server-timing") ?? "";
    const count = shards.layout.shards.length;
    if (count === 1) {
      expect(timing).toMatch(/^d1;dur=\d+;desc="1 batch, \d+ rows read"$/);
      return;
    }
    const [, all, read, most] =
      /desc="1 batch, (\d+) rows read, (\d+) shards, at most (\d+) on one"$/.exec(timing) ?? [];
    expect(Number(read), timing).toBe(count);
    // Every shard reads some index entries, so the busiest read less than all of them together.
    expect(Number(most)).toBeGreaterThan(0);
    expect(Number(most)).toBeLessThan(Number(all));
  });
});

describe("HTTP behaviour", () => {
  it("sends security headers suited to a JSON API", async () => {
    for (const res of [await get(PATHS[0]!), await get("/filings/recent-by-state?state=XX")]) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("strict-transport-security")).toContain("max-age=");
      // Document-only and obsolete headers are not sent with JSON.
      for (const name of ["cross-origin-opener-policy", "x-xss-protection", "x-download-options"]) {
        expect(res.headers.get(name)).toBeNull();
      }
    }
  });

  it("serves the static files (public/_headers) with the same security headers as the JSON answers", async () => {
    // Workers static assets are served before the Worker runs (and not at all
    // in this runtime's tests): the rule for every file must say what the API's middleware does.
    const rules = staticHeaders.split(/\n(?=\/)/).filter((block) => block.startsWith("/"));
    expect(rules.map((rule) => rule.split("\n")[0])).toEqual(["/*"]);
    const fromFile = Object.fromEntries(
      rules[0]!
        .split("\n")
        .slice(1)
        .filter((line) => /^\s+\S/.test(line))
        .map((line) => {
          const colon = line.indexOf(":");
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
    );
    const res = await get(PATHS[0]!);
    const security = [
      "x-content-type-options",
      "content-security-policy",
      "x-frame-options",
      "referrer-policy",
      "strict-transport-security",
      "cross-origin-resource-policy",
    ];
    expect(fromFile).toEqual(Object.fromEntries(security.map((name) => [name, res.headers.get(name)])));
  });

  it("gives every response a UUID request id, the same in the header and the body", async () => {
    for (const [path, key] of [
      [PATHS[0]!, TEST_KEY],
      [PATHS[0]!, null],
      ["/filings/recent-by-state?state=XX", TEST_KEY],
    ] as const) {
      const res = await get(path, key);
      const id = res.headers.get("x-request-id");
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect((await res.json<Pick<ErrorBody, "response_metadata">>()).response_metadata.request_id).toBe(id);
    }
  });

  it("does not reuse a request id sent by the client", async () => {
    const res = await get(PATHS[0]!, TEST_KEY, { headers: { "x-request-id": "client-chosen" } });
    expect(res.headers.get("x-request-id")).not.toBe("client-chosen");
  });

  it("accepts every path with a trailing slash and without one", async () => {
    for (const path of PATHS) {
      const [p, q] = path.split("?");
      const bare = p!.replace(/\/$/, "");
      for (const form of [bare, `${bare}/`]) expect((await get(`${form}?${q}`)).status, form).toBe(200);
    }
  });

  it("answers HEAD like GET, without a body or the headers that describe one", async () => {
    const [head, got] = [await get(PATHS[0]!, TEST_KEY, { method: "HEAD" }), await get(PATHS[0]!)];
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(head.headers.get("content-type")).toBeNull();
    expect(got.headers.get("content-type")).toContain("application/json");
    for (const name of ["etag", "cache-control", "x-request-id"]) expect(head.headers.get(name), name).not.toBeNull();
  });

  it.each(["POST", "PUT", "PATCH", "DELETE", "TRACE", "PROPFIND", "MKCOL", "QUERY", "PURGE"])(
    "answers %s with 405 and an Allow header",
    async (method) => {
      const res = await get(PATHS[0]!, TEST_KEY, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
      expect((await res.json<ErrorBody>()).error.code).toBe("method_not_allowed");
    },
  );

  it("answers a CORS preflight allowing the x-api-key header", async () => {
    const res = await get(PATHS[0]!, null, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-api-key",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-headers")?.split(",")).toContain("x-api-key");
    expect(res.headers.get("access-control-allow-methods")).toBe("GET,HEAD,OPTIONS");
  });

  it("exposes the request id to browser clients", async () => {
    const res = await get(PATHS[0]!, TEST_KEY, { headers: { origin: "https://app.example" } });
    expect(res.headers.get("access-control-expose-headers")).toContain("x-request-id");
  });

  it("sends the CORS headers, once each, with every answer: a page, a 304, a refused key, a bad parameter, a 404 and a 405", async () => {
    const page = await get(PATHS[0]!, TEST_KEY, { headers: { origin: "https://app.example" } });
    expect(page.status).toBe(200);
    const etag = page.headers.get("etag") ?? "";
    const answers = [
      page,
      await get(PATHS[0]!, TEST_KEY, { headers: { origin: "https://app.example", "if-none-match": etag } }),
      await get(PATHS[0]!, null, { headers: { origin: "https://app.example" } }),
      await get("/filings/recent-by-state?state=XX", TEST_KEY, { headers: { origin: "https://app.example" } }),
      await get("/filings/nope", TEST_KEY, { headers: { origin: "https://app.example" } }),
      await get(PATHS[0]!, TEST_KEY, { method: "POST", headers: { origin: "https://app.example" } }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 304, 401, 400, 404, 405]);
    for (const res of answers) {
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-expose-headers")).toBe(
        "x-request-id,ETag,Vary,x-cache,x-d1-bookmark,Server-Timing,x-report-id,x-report-generated-at,Link,WWW-Authenticate,Retry-After,Allow",
      );
    }
  });

  it("answers an unknown path with a JSON 404", async () => {
    const res = await get("/filings/nope");
    expect(res.status).toBe(404);
    expect((await res.json<ErrorBody>()).error.code).toBe("not_found");
  });

  it("never lets errors be cached", async () => {
    const res = await get("/filings/recent-by-state?state=XX");
    expect(res.status).toBe(400);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-type")).toContain("application/json");
  });

  it("treats a repeated parameter as an error naming it", async () => {
    const body = await getJson("/filings/recent-by-state?state=CA&state=NY", 400);
    expect(body.error.details).toEqual([
      { parameter: "state", message: "must be given once, as a two-letter state code" },
    ]);
  });

  it("ignores unknown parameters", async () => {
    expect((await get(`${PATHS[0]}&utm_source=x`)).status).toBe(200);
  });
});
