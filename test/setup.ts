import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { shardsOf } from "../src/db/shards.ts";
import { newTestCaller } from "./helpers.ts";

// Each vitest worker runs its files one after another in one runtime
// (vitest.config.ts, isolate: false), whose storage outlives a file: every
// file starts from what a fresh runtime would give it, empty databases
// (the shards and the test-only ones), no API keys and an empty bucket;
// and test keys and an address of its own, so that no answer the Worker
// cached for another file's key, nor that key's or address's request rate,
// reaches it.
newTestCaller();
const bindings = env as unknown as Record<string, unknown>;
for (const name of Object.keys(bindings).filter((n) => /^DB(_\d+|_WHOLE)?$/.test(n))) {
  const d1 = bindings[name] as D1Database;
  const { results } = await d1
    .prepare(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%'",
    )
    .all<{ name: string }>();
  if (results.length > 0) {
    await d1.batch([
      d1.prepare("pragma defer_foreign_keys = on"),
      ...results.map(({ name: table }) => d1.prepare(`drop table "${table}"`)),
    ]);
  }
}
for (let listed = await env.API_KEYS.list(); listed.keys.length > 0; listed = await env.API_KEYS.list()) {
  await Promise.all(listed.keys.map(({ name }) => env.API_KEYS.delete(name)));
}
for (let listed = await env.FEEDS.list(); listed.objects.length > 0; listed = await env.FEEDS.list()) {
  await env.FEEDS.delete(listed.objects.map((o) => o.key));
}

// The same migrations wrangler applies, on every shard, so tests run on the real schema.
for (const d1 of shardsOf(env).databases.values()) await applyD1Migrations(d1, env.TEST_MIGRATIONS);
