/**
 * API-key check for endpoints 1 to 8, then the key's request-rate limit.
 *
 * Key lookups are cached in the isolate for KEY_CACHE_TTL_MS, so a busy
 * client costs one KV read a minute, not one per request. A revocation
 * therefore takes effect within that window (plus KV's own propagation, up
 * to 60 s); expiry is checked on every request against the cached metadata.
 *
 * Fails closed: if the key store cannot be read, the request is refused with
 * a 503, never let through.
 */
import { createMiddleware } from "hono/factory";
import { hashKey, isKeyMetadata, isUsable, type KeyMetadata, MAX_KEY_LENGTH } from "../domain/apiKeys.ts";
import type { AppEnv } from "./context.ts";
import { log } from "./context.ts";
import { ApiError, unavailable } from "./errors.ts";

export const KEY_CACHE_TTL_MS = 60_000;
/** Bounds the cache, so random keys cannot grow the isolate's memory. */
const KEY_CACHE_MAX = 10_000;
/** Window of the per-key limiters (wrangler.toml `simple.period`). */
export const KEY_RATE_PERIOD_SECONDS = 60;

const cache = new Map<string, { metadata: KeyMetadata | null; until: number }>();

async function lookup(kv: KVNamespace, digest: string): Promise<KeyMetadata | null> {
  const hit = cache.get(digest);
  if (hit && hit.until > Date.now()) return hit.metadata;
  const entry = await kv.getWithMetadata(digest);
  const metadata = entry.value !== null && isKeyMetadata(entry.metadata) ? entry.metadata : null;
  cache.delete(digest);
  if (cache.size >= KEY_CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(digest, { metadata, until: Date.now() + KEY_CACHE_TTL_MS });
  return metadata;
}

const challenge = { "WWW-Authenticate": 'ApiKey header="x-api-key"' };

export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("x-api-key");
  if (!key) {
    throw new ApiError(401, "missing_api_key", "Send your API key in the x-api-key header.", undefined, challenge);
  }
  const invalid = new ApiError(401, "invalid_api_key", "The API key is not valid.", undefined, challenge);
  if (key.length > MAX_KEY_LENGTH) throw invalid;

  const digest = await hashKey(key);
  let metadata: KeyMetadata | null;
  try {
    metadata = await lookup(c.env.API_KEYS, digest);
  } catch (err) {
    log(c, "error", { event: "kv_failure", error: err instanceof Error ? err.name : "unknown" });
    throw unavailable("key store");
  }
  if (!metadata || !isUsable(metadata, c.get("now"))) throw invalid;
  c.set("keyLabel", metadata.label);
  c.set("keyDigest", digest);

  const tier = metadata.rateLimit ?? "standard";
  if (tier !== "unmetered") {
    const limiter = tier === "bulk" ? c.env.KEY_RATE_BULK : c.env.KEY_RATE_STANDARD;
    let allowed = true;
    try {
      allowed = (await limiter.limit({ key: digest })).success;
    } catch (err) {
      // The limiter guards capacity, not access: the key was checked above.
      log(c, "warn", { event: "rate_limiter_failure", error: err instanceof Error ? err.name : "unknown" });
    }
    if (!allowed) {
      throw new ApiError(429, "rate_limited", `This key's ${tier} request rate is exceeded; retry later.`, undefined, {
        "Retry-After": String(KEY_RATE_PERIOD_SECONDS),
      });
    }
  }
  await next();
});
