import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";
import { answeredKeys, ifNoneMatchMatches } from "../src/http/caching.ts";
import type { Body } from "./bodies.ts";
import { daysAgo, filing, get, load, party } from "./helpers.ts";

const KEY_A = "cache-key-a";
const KEY_B = "cache-key-b";
/** How the edge cache answered a GET of `url` with `key`: "hit" or "miss". */
const cacheOf = async (url: string, key: string) => (await get(url, key)).headers.get("x-cache");

beforeAll(async () => {
  for (const key of [KEY_A, KEY_B]) {
    const metadata: KeyMetadata = { label: key, created: daysAgo(1), status: "active" };
    await env.API_KEYS.put(await hashKey(key), "", { metadata });
  }
  await load(Array.from({ length: 7 }, (_, i) => filing({ filedAt: daysAgo(i + 1) })));
});

describe("ETag and conditional requests", () => {
  it("tags a response by its data, so the same data gets the same tag whatever the request id", async () => {
    const first = await get("/filings/recent-by-state?state=CA&t=etag1", KEY_A);
    const again = await get("/filings/recent-by-state?state=CA&t=etag2", KEY_A);
    const page2 = await get("/filings/recent-by-state?state=CA&page=2", KEY_A);
    expect(first.headers.get("etag")).toMatch(/^W\/"[0-9a-f]{32}"$/);
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(page2.headers.get("etag")).not.toBe(first.headers.get("etag"));
    expect(first.headers.get("cache-control")).toBe("private, max-age=60");
  });

  it("answers a matching If-None-Match with 304 and no body", async () => {
    const first = await get("/filings/recent-by-state?state=CA&t=cond", KEY_A);
    const etag = first.headers.get("etag")!;
    const res = await get("/filings/recent-by-state?state=CA&t=cond", KEY_A, { headers: { "if-none-match": etag } });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe("");
    expect(res.headers.get("etag")).toBe(etag);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const stale = await get("/filings/recent-by-state?state=CA&t=cond", KEY_A, {
      headers: { "if-none-match": 'W/"0"' },
    });
    expect(stale.status).toBe(200);
  });

  it("sends a 304 bare, without a body or content headers, whether the edge cache missed or hit", async () => {
    const url = "/filings/recent-by-state?state=CA&t=bare304";
    const etag = (await get(url, KEY_A)).headers.get("etag")!;
    const revalidate = () => get(url, KEY_A, { headers: { "if-none-match": etag } });
    // The second read stores the answer (a miss), the third is served from the cache (a hit).
    for (const cache of ["miss", "hit"]) {
      const res = await revalidate();
      expect(res.status).toBe(304);
      expect(res.headers.get("x-cache")).toBe(cache);
      expect(res.headers.get("etag")).toBe(etag);
      for (const name of ["content-type", "content-length", "content-encoding"]) {
        expect(res.headers.get(name), `${name} on a ${cache}`).toBeNull();
      }
      expect(await res.text()).toBe("");
    }
    const document = await get("/openapi.json", null);
    const again = await get("/openapi.json", null, { headers: { "if-none-match": document.headers.get("etag")! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("content-type")).toBeNull();
  });
});

describe("If-None-Match, per RFC 9110 (weak comparison, lists, *)", () => {
  const url = "/filings/recent-by-state?state=CA&t=rfc9110";
  let weak: string;
  let opaque: string;
  beforeAll(async () => {
    weak = (await get(url, KEY_A)).headers.get("etag")!;
    opaque = weak.slice(2);
  });
  const conditional = (field: string) => get(url, KEY_A, { headers: { "if-none-match": field } });

  it("matches the weak tag as sent", async () => {
    expect((await conditional(weak)).status).toBe(304);
  });

  it("matches the strong form of the weak tag: weak comparison ignores W/", async () => {
    expect(opaque).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await conditional(opaque)).status).toBe(304);
  });

  it("matches when any tag of a list matches, with or without spaces, weak or strong", async () => {
    expect((await conditional(`W/"0", ${weak}`)).status).toBe(304);
    expect((await conditional(`"1",W/"2",${opaque}`)).status).toBe(304);
    expect((await conditional(`W/"0", "1"`)).status).toBe(200);
  });

  it("matches * for any current answer", async () => {
    const res = await conditional("*");
    expect(res.status).toBe(304);
    expect(res.headers.get("etag")).toBe(weak);
  });

  it("never matches malformed or different tags", async () => {
    expect((await conditional(opaque.slice(1, -1))).status).toBe(200);
    expect((await conditional(`w/${opaque}`)).status).toBe(200);
    expect((await conditional("")).status).toBe(200);
  });

  it("parses the field as the grammar says", () => {
    const tag = 'W/"abc"';
    expect(ifNoneMatchMatches(undefined, tag)).toBe(false);
    expect(ifNoneMatchMatches(' "abc" ', tag)).toBe(true);
    expect(ifNoneMatchMatches('"x,abc", "y"', tag)).toBe(false);
    expect(ifNoneMatchMatches('"x,y", W/"abc"', tag)).toBe(true);
    expect(ifNoneMatchMatches(" * ", tag)).toBe(true);
    expect(ifNoneMatchMatches('"ab"', tag)).toBe(false);
    expect(ifNoneMatchMatches('"abc"', '"abc"')).toBe(true);
  });
});

describe("conditional requests from browsers", () => {
  it("allow If-None-Match in a CORS preflight and expose ETag, x-cache and Server-Timing", async () => {
    const preflight = await get("/filings/recent-by-state?state=CA", null, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-api-key,if-none-match",
      },
    });
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase().split(",")).toContain("if-none-match");
    const res = await get("/filings/recent-by-state?state=CA&t=cors", KEY_A, {
      headers: { origin: "https://app.example" },
    });
    const exposed = res.headers.get("access-control-expose-headers")?.toLowerCase().split(",");
    expect(exposed).toEqual(expect.arrayContaining(["etag", "x-cache", "server-timing"]));
  });
});

describe("Server-Timing", () => {
  it("reports D1's work on a miss and the cache on a hit", async () => {
    const url = "/filings/recent-by-state?state=CA&t=timing";
    const miss = await get(url, KEY_A);
    expect(miss.headers.get("x-cache")).toBe("miss");
    expect(miss.headers.get("server-timing")).toMatch(/^d1;dur=\d+;desc="\d+ batch, \d+ rows read"$/);
    await get(url, KEY_A);
    const hit = await get(url, KEY_A);
    expect(hit.headers.get("x-cache")).toBe("hit");
    expect(hit.headers.get("server-timing")).toMatch(/^cache;dur=\d+;desc="hit"$/);
    const notModified = await get(url, KEY_A, { headers: { "if-none-match": hit.headers.get("etag")! } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("server-timing")).toMatch(/^cache;dur=\d+;desc="hit"$/);
  });
});

describe("edge cache", () => {
  it("stores an answer the second time it is read within its lifetime, and serves it from the third", async () => {
    const url = "/filings/recent-by-state?state=CA&t=admit";
    expect(await cacheOf(url, KEY_A)).toBe("miss");
    expect(await cacheOf(url, KEY_A)).toBe("miss");
    expect(await cacheOf(url, KEY_A)).toBe("hit");
    expect(await cacheOf(url, KEY_A)).toBe("hit");
  });

  it("remembers a lookup through half its bound of newer ones, and never more lookups than the bound", () => {
    const now = Date.now();
    const key = (i: number) => `https://lookup-cache.internal/public/filings?t=bound-${i}`;
    expect(answeredKeys.admit(key(0), now)).toBe(false);
    for (let i = 1; i <= answeredKeys.max / 2; i++) answeredKeys.admit(key(i), now);
    expect(answeredKeys.remembered(key(0), now)).toBe(true);
    let most = 0;
    for (let i = answeredKeys.max / 2 + 1; i <= answeredKeys.max * 2; i++) {
      answeredKeys.admit(key(i), now);
      most = Math.max(most, answeredKeys.size());
    }
    expect(most).toBeLessThanOrEqual(answeredKeys.max);
    expect(answeredKeys.remembered(key(0), now)).toBe(false);
    expect(answeredKeys.remembered(key(answeredKeys.max * 2), now)).toBe(true);
    // Asked again: stored, and remembered anew.
    expect(answeredKeys.admit(key(answeredKeys.max * 2), now)).toBe(true);
    // Past its minute a key counts as not answered.
    expect(answeredKeys.remembered(key(answeredKeys.max * 2), now + 61_000)).toBe(false);
  });

  it("looks in the cache only for a lookup this isolate already answered within the minute", async () => {
    const url = "/filings/recent-by-state?state=CA&t=lookup";
    const lookups = vi.spyOn(caches.default, "match");
    const lookedUp = () =>
      lookups.mock.calls.filter(([req]) => String(req instanceof Request ? req.url : req).includes("t=lookup"));
    try {
      await get(url, KEY_A);
      expect(lookedUp()).toHaveLength(0);
      await get(url, KEY_A);
      expect(lookedUp()).toHaveLength(1);
      expect(await cacheOf(url, KEY_A)).toBe("hit");
      expect(lookedUp()).toHaveLength(2);
    } finally {
      lookups.mockRestore();
    }
  });

  it("shares an entry between orders of the same parameters and a trailing slash", async () => {
    expect(await cacheOf("/filings/recent-by-state?state=CA&t=order&page=1", KEY_A)).toBe("miss");
    expect(await cacheOf("/filings/recent-by-state/?page=1&t=order&state=CA", KEY_A)).toBe("miss");
    expect(await cacheOf("/filings/recent-by-state?t=order&page=1&state=CA", KEY_A)).toBe("hit");
    expect(await cacheOf("/filings/recent-by-state?t=order&page=2&state=CA", KEY_A)).toBe("miss");
  });

  it("keeps entries per key and per URL", async () => {
    const url = "/filings/recent-by-state?state=CA&t=iso";
    expect(await cacheOf(url, KEY_A)).toBe("miss");
    expect(await cacheOf(url, KEY_A)).toBe("miss");
    expect(await cacheOf(url, KEY_A)).toBe("hit");
    expect(await cacheOf(url, KEY_B)).toBe("miss");
    expect(await cacheOf(url, KEY_B)).toBe("miss");
    expect(await cacheOf(`${url}&page=2`, KEY_A)).toBe("miss");
  });

  it("re-stamps a hit with this request's id and time", async () => {
    const url = "/filings/recent-by-state?state=CA&t=stamp";
    const first = await (await get(url, KEY_A)).json<Body<typeof url>>();
    await get(url, KEY_A);
    const res = await get(url, KEY_A);
    const body = await res.json<Body<typeof url>>();
    expect(res.headers.get("x-cache")).toBe("hit");
    expect(body.response_metadata.request_id).toBe(res.headers.get("x-request-id"));
    expect(body.response_metadata.request_id).not.toBe(first.response_metadata.request_id);
    expect(body.ucc_liens).toEqual(first.ucc_liens);
  });

  it("writes the request's id and time into a body of non-ASCII text without moving a byte of the rest", async () => {
    await load([filing({ state: "OR", debtors: [party("Müller & Søn Bäckerei GmbH")] })]);
    const url = "/filings/recent-by-state?state=OR&t=utf8";
    const first = await get(url, KEY_A);
    const again = await get(url, KEY_A);
    const [a, b] = [await first.text(), await again.text()];
    const body = JSON.parse(b) as Body<typeof url>;
    expect(b).toContain("Müller & Søn Bäckerei GmbH");
    expect(body.response_metadata.request_id).toBe(again.headers.get("x-request-id"));
    expect(Number(again.headers.get("content-length") ?? new TextEncoder().encode(b).length)).toBe(
      new TextEncoder().encode(b).length,
    );
    // Only the metadata's id and time differ between the two answers.
    const unstamp = (text: string) => text.replace(/"request_id":"[^"]*"/, "").replace(/"timestamp":"[^"]*"/, "");
    expect(unstamp(b)).toBe(unstamp(a));
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
  });

  it("checks the key before the cache: a cached URL is refused to a bad key", async () => {
    const url = "/filings/recent-by-state?state=CA&t=auth";
    await get(url, KEY_A);
    await get(url, KEY_A);
    expect(await cacheOf(url, KEY_A)).toBe("hit");
    expect((await get(url, "not-a-key")).status).toBe(401);
    expect((await get(url, null)).status).toBe(401);
  });

  it("does not cache errors", async () => {
    const url = "/filings/recent-by-state?state=ZZ";
    await get(url, KEY_A);
    const res = await get(url, KEY_A);
    expect(res.status).toBe(400);
    expect(res.headers.get("x-cache")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});
