import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";
import { daysAgo, filing, get, load } from "./helpers.ts";

const KEY_A = "cache-key-a";
const KEY_B = "cache-key-b";

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
});

describe("edge cache", () => {
  it("keeps entries per key and per URL", async () => {
    const url = "/filings/recent-by-state?state=CA&t=iso";
    expect((await get(url, KEY_A)).headers.get("x-cache")).toBe("miss");
    expect((await get(url, KEY_A)).headers.get("x-cache")).toBe("hit");
    expect((await get(url, KEY_B)).headers.get("x-cache")).toBe("miss");
    expect((await get(`${url}&page=2`, KEY_A)).headers.get("x-cache")).toBe("miss");
  });

  it("re-stamps a hit with this request's id and time", async () => {
    const url = "/filings/recent-by-state?state=CA&t=stamp";
    const first = await (await get(url, KEY_A)).json<any>();
    const res = await get(url, KEY_A);
    const body = await res.json<any>();
    expect(res.headers.get("x-cache")).toBe("hit");
    expect(body.response_metadata.request_id).toBe(res.headers.get("x-request-id"));
    expect(body.response_metadata.request_id).not.toBe(first.response_metadata.request_id);
    expect(body.ucc_liens).toEqual(first.ucc_liens);
  });

  it("checks the key before the cache: a cached URL is refused to a bad key", async () => {
    const url = "/filings/recent-by-state?state=CA&t=auth";
    await get(url, KEY_A);
    expect((await get(url, KEY_A)).headers.get("x-cache")).toBe("hit");
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
