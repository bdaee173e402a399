/**
 * Key lifecycle as the Worker sees it: expiry, revocation within the
 * documented cache window, and per-key rate tiers.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";
import { KEY_CACHE_TTL_MS } from "../src/http/auth.ts";
import type { ErrorBody } from "./bodies.ts";
import { daysAgo, filing, get, load } from "./helpers.ts";

const PATH = "/filings/recent-by-state?state=CA";

async function putKey(key: string, over: Partial<KeyMetadata> = {}) {
  const metadata: KeyMetadata = { label: `label of ${key}`, created: daysAgo(1), status: "active", ...over };
  await env.API_KEYS.put(await hashKey(key), JSON.stringify(metadata), { metadata });
}

beforeAll(async () => {
  await load([filing()]);
});

afterEach(() => {
  vi.useRealTimers();
});

describe("key lifecycle", () => {
  it("refuses an expired key and accepts one that has not expired yet", async () => {
    await putKey("expired-key", { expires: daysAgo(1) });
    await putKey("future-key", { expires: daysAgo(-30) });
    expect((await get(PATH, "expired-key")).status).toBe(401);
    expect((await get(PATH, "future-key")).status).toBe(200);
  });

  it("refuses a key as soon as it expires, even while its lookup is cached", async () => {
    const expires = new Date(Date.now() + 20_000).toISOString();
    await putKey("expiring-key", { expires });
    expect((await get(PATH, "expiring-key")).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.parse(expires) + 1);
    expect((await get(PATH, "expiring-key")).status).toBe(401);
  });

  it("refuses a revoked key once the cache window has passed", async () => {
    await putKey("soon-revoked");
    expect((await get(PATH, "soon-revoked")).status).toBe(200);
    await putKey("soon-revoked", { status: "revoked" });
    // Within the window the cached lookup still answers...
    expect((await get(PATH, "soon-revoked")).status).toBe(200);
    // ...and after it the revocation holds.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + KEY_CACHE_TTL_MS + 1_000);
    const res = await get(PATH, "soon-revoked");
    expect(res.status).toBe(401);
    expect((await res.json<ErrorBody>()).error.code).toBe("invalid_api_key");
  });
});

describe("per-key rate limits", () => {
  it("limits a standard key to 600 requests a minute, answering 429 with Retry-After", async () => {
    await putKey("standard-key");
    await putKey("other-standard-key");
    // The limiter counts in fixed one-minute windows; if one closes during
    // the run, up to twice the limit can pass before the first 429.
    let allowed = 0;
    let limited: Response | undefined;
    while (!limited && allowed <= 1200) {
      const res = await get("/debtors/addresses?name=nobody", "standard-key");
      if (res.status === 429) limited = res;
      else {
        expect(res.status).toBe(200);
        allowed += 1;
      }
    }
    expect(allowed).toBeGreaterThanOrEqual(600);
    expect(allowed).toBeLessThanOrEqual(1200);
    if (!limited) throw new Error("never limited");
    expect(limited.headers.get("retry-after")).toBe("60");
    expect((await limited.json<ErrorBody>()).error.code).toBe("rate_limited");
    // Other keys have their own budget.
    expect((await get("/debtors/addresses?name=nobody", "other-standard-key")).status).toBe(200);
  }, 60_000);

  it("gives bulk and unmetered keys more room", async () => {
    await putKey("bulk-key", { rateLimit: "bulk" });
    await putKey("unmetered-key", { rateLimit: "unmetered" });
    for (const key of ["bulk-key", "unmetered-key"]) {
      const statuses = new Set<number>();
      for (let i = 0; i < 650; i++) statuses.add((await get("/debtors/addresses?name=nobody", key)).status);
      expect([...statuses]).toEqual([200]);
    }
  }, 60_000);
});
