import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { shardsOf } from "../src/db/shards.ts";

// The same migrations wrangler applies, on every shard, so tests run on the real schema.
for (const d1 of shardsOf(env).databases.values()) await applyD1Migrations(d1, env.TEST_MIGRATIONS);
