/**
 * API-key check for every route but the public lookup (`GET /filings`), then the key's request-rate limit.
 *
 * What KV answered is kept in the isolate, in separate stores, so that
 * guesses can neither evict valid keys nor turn into KV load:
 * - keys KV holds (active, revoked or expired) for KEY_CACHE_TTL_MS, so a
 *   busy client costs one KV read a minute. Only KV's answers fill it, so a
 *   guesser cannot. A revocation takes effect within that window (plus KV's
 *   own propagation, up to 60 s); expiry is checked on every request.
 * - keys KV does not hold for UNKNOWN_KEY_TTL_MS only, so a key tried before
 *   it was created works seconds later;
 * - client addresses over their budget of failed checks (FAILED_KEY_CHECKS,
 *   60 a minute), whose unknown, revoked, expired and over-long keys alike
 *   are refused with 429, without reading KV for keys it does not hold,
 *   until the limiter's window has passed. Valid keys never count against it, and a
 *   key this isolate already found in KV is re-read even from such an
 *   address, so a client with a valid key is not locked out by a guesser
 *   (or a misconfigured script) behind the same address.
 *
 * Fails closed: if KV throws or does not answer within KV_TIMEOUT_MS, the
 * request is refused with a 503 (logged as `kv_failure`), and nothing about
 * that key is remembered, so the next request after KV recovers succeeds.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { hashKey, isKeyMetadata, isUsable, type KeyMetadata, MAX_KEY_LENGTH } from "../domain/apiKeys.ts";
import type { AppEnv } from "./context.ts";
import { log } from "./context.ts";
import { ApiError, unavailable } from "./errors.ts";
import { clientAddress, RATE_LIMIT_PERIOD_SECONDS, rateLimited, withinLimit } from "./rateLimit.ts";

export const KEY_CACHE_TTL_MS = 60_000;
export const UNKNOWN_KEY_TTL_MS = 5_000;
/** Longest a request waits for KV before answering 503. */
export const KV_TIMEOUT_MS = 2_000;
/** Window of the per-key limiters (wrangler.toml `simple.period`). */
const KEY_RATE_PERIOD_SECONDS = 60;

/**
 * Entries that expire, in insertion order. An expired entry stays (as
 * `held`) until the oldest goes to make room: the store is bounded by count.
 */
class ExpiringStore<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();
  readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  /** The value, while it has not expired. */
  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    return entry && entry.until > now ? entry.value : undefined;
  }

  /** Whether the store holds `key`, expired or not. */
  held(key: string): boolean {
    return this.#entries.has(key);
  }

  set(key: string, value: V, until: number): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, until });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** The isolate's key stores, exported for tests. Each is bounded, so none can grow the isolate's memory. */
export const keyStores = {
  known: new ExpiringStore<KeyMetadata>(10_000),
  /**
   * Digests of usable keys, by key: a busy client's key is hashed once per
   * isolate and minute, not on every request. Only keys KV vouched for fill
   * it, so guesses are hashed each time and cannot evict a valid key's.
   */
  digests: new ExpiringStore<string>(10_000),
  unknown: new ExpiringStore<true>(1_000),
  blocked: new ExpiringStore<true>(10_000),
};

class KvTimeout extends Error {
  override name = "KvTimeout";
}

/** The key's metadata as KV holds it, or null if KV answered that it holds no such key. */
async function readKey(c: Context<AppEnv>, digest: string): Promise<KeyMetadata | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new KvTimeout()), KV_TIMEOUT_MS);
  });
  try {
    const entry = await Promise.race([c.env.API_KEYS.getWithMetadata(digest), timeout]);
    if (entry.value === null) return null;
    if (isKeyMetadata(entry.metadata)) return entry.metadata;
    // Stored without usable metadata: refused (fail closed), and worth a look.
    log(c, "warn", { event: "key_metadata_invalid" });
    return null;
  } catch (err) {
    // Never the key or its digest: the error's kind only.
    log(c, "error", { event: "kv_failure", error: err instanceof Error ? err.name : "unknown" });
    throw unavailable("key store");
  } finally {
    clearTimeout(timer);
  }
}

const tooManyFailures = () =>
  rateLimited("Too many requests with unknown API keys from this address; retry after Retry-After seconds.");

/** The metadata of the key with this digest, or null if there is no such key. */
async function lookup(c: Context<AppEnv>, digest: string): Promise<KeyMetadata | null> {
  const now = Date.now();
  const known = keyStores.known.get(digest, now);
  if (known) return known;
  const client = clientAddress(c);
  // A key this isolate has seen in KV is re-read whatever its address did: refreshing it is not guessing.
  if (!keyStores.known.held(digest)) {
    if (keyStores.blocked.get(client, now)) throw tooManyFailures();
    if (keyStores.unknown.get(digest, now)) return null;
  }

  const metadata = await readKey(c, digest);
  if (metadata) {
    keyStores.known.set(digest, metadata, now + KEY_CACHE_TTL_MS);
    return metadata;
  }
  keyStores.known.delete(digest);
  keyStores.unknown.set(digest, true, now + UNKNOWN_KEY_TTL_MS);
  if (!(await withinLimit(c, c.env.FAILED_KEY_CHECKS, client))) {
    keyStores.blocked.set(client, true, now + RATE_LIMIT_PERIOD_SECONDS * 1000);
    throw tooManyFailures();
  }
  return null;
}

const challenge = { "WWW-Authenticate": 'ApiKey header="x-api-key"' };

/**
 * Refuses a key that is not usable. Unknown, revoked, expired and over-long
 * keys get the same answer: 401, or the 429 while the address is over its
 * budget of failed checks (which only reads of keys KV does not hold spend).
 * Built only when thrown: an error captures a stack trace, which every
 * request would pay for.
 */
function refusal(c: Context<AppEnv>): ApiError {
  if (keyStores.blocked.get(clientAddress(c), Date.now())) return tooManyFailures();
  return new ApiError("invalid_api_key", "The API key is not valid.", { headers: challenge });
}

export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("x-api-key");
  if (!key) {
    throw new ApiError("missing_api_key", "Send your API key in the x-api-key header.", { headers: challenge });
  }
  if (key.length > MAX_KEY_LENGTH) throw refusal(c);

  const now = Date.now();
  const remembered = keyStores.digests.get(key, now);
  const digest = remembered ?? (await hashKey(key));
  const metadata = await lookup(c, digest);
  if (!metadata || !isUsable(metadata, c.get("now"))) throw refusal(c);
  // Until the key's KV answer is re-read: a key KV dropped is hashed again.
  if (!remembered) keyStores.digests.set(key, digest, now + KEY_CACHE_TTL_MS);
  c.set("keyLabel", metadata.label);
  c.set("keyDigest", digest);

  const tier = metadata.rateLimit ?? "standard";
  if (tier !== "unmetered") {
    const limiter = tier === "bulk" ? c.env.KEY_RATE_BULK : c.env.KEY_RATE_STANDARD;
    // The limiter guards capacity, not access: the key was checked above.
    if (!(await withinLimit(c, limiter, digest))) {
      throw new ApiError("rate_limited", `This key's ${tier} request rate is exceeded; retry later.`, {
        headers: { "Retry-After": String(KEY_RATE_PERIOD_SECONDS) },
      });
    }
  }
  await next();
});
