/**
 * The key check against a faulty or probed key store: KV failures are 503s
 * that leave nothing behind, unknown keys are remembered only briefly and
 * apart from valid ones, and guessing from one address stops costing KV
 * reads once its budget of failed checks is spent. KV is wrapped to count
 * (or break) reads; the app is called directly with that binding.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app.ts";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";
import { KEY_CACHE_TTL_MS, KV_TIMEOUT_MS, keyStores, UNKNOWN_KEY_TTL_MS } from "../src/http/auth.ts";
import { LIMITER_TIMEOUT_MS } from "../src/http/rateLimit.ts";
import type { ErrorBody } from "./bodies.ts";
import { daysAgo, filing, load, testAddress } from "./helpers.ts";

const PATH = "/filings/recent-by-state?state=CA";
/** The FAILED_KEY_CHECKS budget per address and window (wrangler.toml). */
const BUDGET = 60;

const app = createApp();
let unique = 0;
/** A name no other test uses, for keys and client addresses. */
const fresh = (prefix: string) => `${prefix}-${++unique}-${crypto.randomUUID()}`;
const address = () => {
  const n = ++unique;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

async function putKey(key: string) {
  const metadata: KeyMetadata = { label: `label of ${key}`, created: daysAgo(1), status: "active" };
  await env.API_KEYS.put(await hashKey(key), "", { metadata });
}

/** The real KV, with every read recorded by digest. */
function countingKv() {
  const digests: string[] = [];
  const kv = {
    digests,
    getWithMetadata: (digest: string) => {
      digests.push(digest);
      return env.API_KEYS.getWithMetadata(digest);
    },
  };
  return kv;
}

type Kv = Pick<KVNamespace, "getWithMetadata"> | { getWithMetadata: (digest: string) => unknown };

async function call(key: string, kv: Kv = env.API_KEYS, ip = testAddress(50)): Promise<Response> {
  return app.request(
    PATH,
    { headers: { "x-api-key": key, "cf-connecting-ip": ip } },
    { ...env, API_KEYS: kv as KVNamespace },
  );
}

/** Runs `work` with console.error captured; returns its result and the parsed lines. */
async function capturingErrors<T>(work: () => Promise<T>): Promise<[T, Record<string, unknown>[]]> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((line: string) => lines.push(line));
  try {
    return [await work(), lines.map((l) => JSON.parse(l))];
  } finally {
    spy.mockRestore();
  }
}

beforeAll(async () => {
  await load([filing()]);
});

afterEach(() => {
  vi.useRealTimers();
});

describe("key store faults", () => {
  it("answers 503 with Retry-After and a logged kv_failure when a KV read throws, and serves the next request once KV recovers", async () => {
    const key = fresh("valid-during-outage");
    await putKey(key);
    const throwing = {
      getWithMetadata: () => {
        throw new Error("KV unavailable");
      },
    };
    const rejecting = { getWithMetadata: () => Promise.reject(new Error("KV unavailable")) };
    for (const broken of [throwing, rejecting]) {
      const [res, logged] = await capturingErrors(() => call(key, broken));
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect((await res.json<ErrorBody>()).error.code).toBe("service_unavailable");
      expect(logged).toEqual([
        { level: "error", request_id: res.headers.get("x-request-id"), event: "kv_failure", error: "Error" },
      ]);
      expect(JSON.stringify(logged)).not.toContain(key);
      expect(JSON.stringify(logged)).not.toContain((await hashKey(key)).slice(0, 8));
    }
    // Nothing was remembered about the key: the first request after the outage is served.
    expect((await call(key)).status).toBe(200);
  });

  it("answers 503 when KV does not answer within the timeout, and serves the next request once KV recovers", async () => {
    const key = fresh("valid-during-hang");
    await putKey(key);
    const hanging = { getWithMetadata: () => new Promise(() => {}) };
    vi.useFakeTimers();
    const [res, logged] = await capturingErrors(async () => {
      let settled: Response | undefined;
      const pending = call(key, hanging).then((r) => {
        settled = r;
        return r;
      });
      for (let waited = 0; !settled && waited <= KV_TIMEOUT_MS * 2; waited += 100) {
        await vi.advanceTimersByTimeAsync(100);
      }
      return pending;
    });
    vi.useRealTimers();
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(logged).toEqual([expect.objectContaining({ event: "kv_failure", error: "KvTimeout" })]);
    expect((await call(key)).status).toBe(200);
  });
});

describe("rate limiter faults", () => {
  it("serves a request whose rate limiter does not answer within its timeout, and logs that it did not", async () => {
    const key = fresh("valid-during-limiter-hang");
    await putKey(key);
    const hanging = { limit: () => new Promise(() => {}) } as unknown as RateLimit;
    const warned: string[] = [];
    const spy = vi.spyOn(console, "warn").mockImplementation((line: string) => warned.push(line));
    vi.useFakeTimers();
    try {
      for (const [path, bindings] of [
        [PATH, { KEY_RATE_STANDARD: hanging, KEY_RATE_BULK: hanging }],
        ["/filings?initial_financing_number=NOPE-1", { PUBLIC_LOOKUPS: hanging }],
      ] as const) {
        let settled: Response | undefined;
        const headers = { "x-api-key": key, "cf-connecting-ip": address() };
        const pending = Promise.resolve(app.request(path, { headers }, { ...env, ...bindings })).then((r) => {
          settled = r;
          return r;
        });
        for (let waited = 0; !settled && waited <= LIMITER_TIMEOUT_MS * 2; waited += 100) {
          await vi.advanceTimersByTimeAsync(100);
        }
        expect((await pending).status).toBe(200);
      }
    } finally {
      vi.useRealTimers();
      spy.mockRestore();
    }
    const events = warned.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.event === "rate_limiter_failure")).toEqual([
      expect.objectContaining({ error: "LimiterTimeout" }),
      expect.objectContaining({ error: "LimiterTimeout" }),
    ]);
  });
});

describe("unknown keys", () => {
  it(`accepts a key created after it was tried, once the unknown-key window of ${UNKNOWN_KEY_TTL_MS / 1000} s has passed`, async () => {
    const key = fresh("created-later");
    vi.useFakeTimers({ toFake: ["Date"] });
    expect((await call(key)).status).toBe(401);
    await putKey(key);
    vi.setSystemTime(Date.now() + UNKNOWN_KEY_TTL_MS + 1);
    expect((await call(key)).status).toBe(200);
  });

  it("answers repeated tries of one unknown key from the isolate for the window, without more KV reads", async () => {
    const kv = countingKv();
    const key = fresh("typo");
    for (let i = 0; i < 5; i++) expect((await call(key, kv)).status).toBe(401);
    expect(kv.digests).toHaveLength(1);
  });
});

describe("key guessing", () => {
  it("answers guesses beyond the per-address budget with 429 and no KV reads", async () => {
    const kv = countingKv();
    const ip = address();
    let refused = 0;
    let limited: Response | undefined;
    // Fixed one-minute windows: a window closing mid-run lets up to twice the budget through.
    while (!limited && refused <= 2 * BUDGET) {
      const res = await call(fresh("guess"), kv, ip);
      if (res.status === 429) limited = res;
      else {
        expect(res.status).toBe(401);
        refused += 1;
      }
    }
    if (!limited) throw new Error("never limited");
    expect(refused).toBeGreaterThanOrEqual(BUDGET);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect((await limited.json<ErrorBody>()).error).toEqual({
      code: "rate_limited",
      message: "Too many requests with unknown API keys from this address; retry after Retry-After seconds.",
    });
    // Every check up to the one that spent the budget read KV; none after it does.
    const reads = kv.digests.length;
    expect(reads).toBe(refused + 1);
    for (let i = 0; i < 20; i++) expect((await call(fresh("guess"), kv, ip)).status).toBe(429);
    expect(kv.digests).toHaveLength(reads);
    // Other addresses keep their own budget.
    expect((await call(fresh("guess"), kv, address())).status).toBe(401);
  }, 60_000);

  it("never counts valid keys against the budget, and keeps serving keys it has seen to an address over it", async () => {
    const ip = address();
    const keys = Array.from({ length: BUDGET + 20 }, () => fresh("valid"));
    for (const key of keys) await putKey(key);
    // More first-time lookups of valid keys than the budget allows failures.
    for (const key of keys) expect((await call(key, env.API_KEYS, ip)).status).toBe(200);
    const cachedAt = Date.now();
    for (let i = 0; i < 2 * BUDGET + 1; i++) {
      if ((await call(fresh("guess"), env.API_KEYS, ip)).status === 429) break;
    }
    expect((await call(fresh("guess"), env.API_KEYS, ip)).status).toBe(429);
    // A key already found in KV is served, and re-read once its cache entry expires.
    expect((await call(keys[0]!, env.API_KEYS, ip)).status).toBe(200);
    // Later, the cache entries have expired and the address is still over its budget.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(cachedAt + KEY_CACHE_TTL_MS + 1);
    expect((await call(fresh("guess"), env.API_KEYS, ip)).status).toBe(429);
    const kv = countingKv();
    expect((await call(keys[1]!, kv, ip)).status).toBe(200);
    expect(kv.digests).toEqual([await hashKey(keys[1]!)]);
    // A key this isolate has not seen waits, like a guess, until the address's block ends.
    const unseen = fresh("valid-unseen");
    await putKey(unseen);
    expect((await call(unseen, env.API_KEYS, ip)).status).toBe(429);
  }, 60_000);

  it("gives unknown, revoked, expired and over-long keys the same answer, under the budget and over it", async () => {
    const ip = address();
    const put = async (key: string, over: Partial<KeyMetadata>) => {
      const metadata: KeyMetadata = { label: key, created: daysAgo(10), status: "active", ...over };
      await env.API_KEYS.put(await hashKey(key), "", { metadata });
    };
    const revoked = fresh("revoked");
    const expired = fresh("expired");
    await put(revoked, { status: "revoked" });
    await put(expired, { expires: daysAgo(1) });
    const refusals = async () => {
      const answers = [];
      for (const key of [fresh("unknown"), revoked, expired, "k".repeat(300)]) {
        const res = await call(key, env.API_KEYS, ip);
        answers.push([res.status, (await res.json<ErrorBody>()).error.code, res.headers.get("retry-after")]);
      }
      return answers;
    };
    // Under the budget (the revoked and expired keys are now in the isolate's cache, as KV answered them).
    expect(await refusals()).toEqual(Array(4).fill([401, "invalid_api_key", null]));
    for (let i = 0; i < 2 * BUDGET + 1; i++) {
      if ((await call(fresh("guess"), env.API_KEYS, ip)).status === 429) break;
    }
    expect(await refusals()).toEqual(Array(4).fill([429, "rate_limited", "60"]));
  }, 60_000);

  it("hashes a valid key once per isolate and minute, and a guess on every try", async () => {
    const key = fresh("hashed-once");
    const guess = fresh("hashed-guess");
    await putKey(key);
    const hashes = vi.spyOn(crypto.subtle, "digest");
    const hashed = (text: string) =>
      hashes.mock.calls.filter(([, data]) => new TextDecoder().decode(data as Uint8Array) === text).length;
    try {
      for (let i = 0; i < 3; i++) {
        expect((await call(key)).status).toBe(200);
        expect((await call(guess, env.API_KEYS, address())).status).toBe(401);
      }
      expect(hashed(key)).toBe(1);
      expect(hashed(guess)).toBe(3);
      vi.useFakeTimers({ now: Date.now() + KEY_CACHE_TTL_MS + 1, toFake: ["Date"] });
      expect((await call(key)).status).toBe(200);
      expect(hashed(key)).toBe(2);
    } finally {
      vi.useRealTimers();
      hashes.mockRestore();
    }
  });

  it("cannot evict a valid key from the isolate's cache", async () => {
    const kv = countingKv();
    const key = fresh("valid-under-guessing");
    await putKey(key);
    const digest = await hashKey(key);
    expect((await call(key, kv)).status).toBe(200);
    const known = keyStores.known.size;
    const digests = keyStores.digests.size;
    // More guesses than the unknown-key store holds, each from its own address so none is limited.
    for (let i = 0; i < keyStores.unknown.max + 100; i++) {
      expect((await call(fresh("guess"), kv, `198.18.${i >> 8}.${i & 255}`)).status).toBe(401);
    }
    expect(keyStores.known.size).toBe(known);
    expect(keyStores.digests.size).toBe(digests);
    expect(keyStores.unknown.size).toBe(keyStores.unknown.max);
    expect((await call(key, kv)).status).toBe(200);
    expect(kv.digests.filter((d) => d === digest)).toHaveLength(1);
  }, 60_000);
});
