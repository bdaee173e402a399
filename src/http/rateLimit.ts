/**
 * Per-client-address limit for the public endpoint, with Cloudflare's rate
 * limiting binding. The limiter protects capacity rather than data, so if it
 * cannot answer the request goes through (and the failure is logged).
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context.ts";
import { log } from "./context.ts";
import { ApiError } from "./errors.ts";

/** The binding's window (wrangler.toml `simple.period`), sent as Retry-After. */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

export const limitByClientAddress = createMiddleware<AppEnv>(async (c, next) => {
  const client = c.req.header("cf-connecting-ip") ?? "unknown";
  let allowed = true;
  try {
    allowed = (await c.env.PUBLIC_LOOKUPS.limit({ key: client })).success;
  } catch (err) {
    log(c, "warn", { event: "rate_limiter_failure", error: err instanceof Error ? err.name : "unknown" });
  }
  if (!allowed) {
    throw new ApiError(429, "rate_limited", "Too many requests from this address; retry later.", undefined, {
      "Retry-After": String(RATE_LIMIT_PERIOD_SECONDS),
    });
  }
  await next();
});
