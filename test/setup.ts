import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// The same migrations wrangler applies, so tests run on the real schema.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
