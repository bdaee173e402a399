/**
 * Per-client-address limits, with Cloudflare's rate limiting bindings: the
 * public endpoint's request limit here, and the failed-key-check limit of
 * src/http/auth.ts. The limiters protect capacity rather than data, so if
 * one fails or does not answer within LIMITER_TIMEOUT_MS the request goes
 * through (and the failure is logged).
 *
 * The client address is `CF-Connecting-IP`, which Cloudflare's edge sets on
 * every request it forwards to the Worker (a value the client sent is not
 * passed through). Without it (local dev, tests) every request counts as one
 * client, `unknown`.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context.ts";
import { log } from "./context.ts";
import { ApiError } from "./errors.ts";

/** The bindings' window (wrangler.toml `simple.period`), sent as Retry-After. */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

/**
 * The address a limit counts against: an IPv4 address as is; an IPv6 address
 * by its /64 network, since one subscriber is usually given a whole /64 and
 * could otherwise take a fresh address for every request.
 */
export function clientAddress(c: Context<AppEnv>): string {
  const ip = c.req.header("cf-connecting-ip")?.trim().toLowerCase();
  if (!ip) return "unknown";
  if (!ip.includes(":")) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1];
  if (mapped) return mapped;
  const [head = "", tail] = ip.split("::", 2);
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * How long a limiter may take to answer before the request goes on without
 * it: the binding answers from the Worker's own location, well within this,
 * and one that hangs must not hang every request behind it.
 */
export const LIMITER_TIMEOUT_MS = 1_000;

class LimiterTimeout extends Error {
  override name = "LimiterTimeout";
}

/** Counts one event for `key` on `limiter`; true while within budget, or if the limiter fails or does not answer. */
export async function withinLimit(c: Context<AppEnv>, limiter: RateLimit, key: string): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LimiterTimeout()), LIMITER_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([limiter.limit({ key }), timeout])).success;
  } catch (err) {
    log(c, "warn", { event: "rate_limiter_failure", error: err instanceof Error ? err.name : "unknown" });
    return true;
  } finally {
    clearTimeout(timer);
  }
}

export function rateLimited(message: string): ApiError {
  return new ApiError("rate_limited", message, { headers: { "Retry-After": String(RATE_LIMIT_PERIOD_SECONDS) } });
}

export const limitByClientAddress = createMiddleware<AppEnv>(async (c, next) => {
  if (!(await withinLimit(c, c.env.PUBLIC_LOOKUPS, clientAddress(c)))) {
    throw rateLimited("Too many requests from this address; retry later.");
  }
  await next();
});
