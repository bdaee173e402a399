/**
 * API-key check for endpoints 1 to 8. Fails closed: if the key store cannot
 * be read, the request is refused with a 503, never let through.
 */
import { createMiddleware } from "hono/factory";
import { hashKey, isKeyMetadata, MAX_KEY_LENGTH } from "../domain/apiKeys.ts";
import type { AppEnv } from "./context.ts";
import { ApiError, unavailable } from "./errors.ts";

export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("x-api-key");
  if (!key) {
    throw new ApiError(401, "missing_api_key", "Send your API key in the x-api-key header.", undefined, {
      "WWW-Authenticate": 'ApiKey header="x-api-key"',
    });
  }
  const invalid = new ApiError(401, "invalid_api_key", "The API key is not valid.", undefined, {
    "WWW-Authenticate": 'ApiKey header="x-api-key"',
  });
  if (key.length > MAX_KEY_LENGTH) throw invalid;

  let metadata: unknown;
  try {
    const entry = await c.env.API_KEYS.getWithMetadata(await hashKey(key));
    if (entry.value === null) throw invalid;
    metadata = entry.metadata;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw unavailable("key store");
  }
  if (!isKeyMetadata(metadata) || metadata.status !== "active") throw invalid;
  c.set("keyLabel", metadata.label);
  await next();
});
